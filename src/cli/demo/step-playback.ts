/**
 * Demo step 7: play every media message back from both stores and compare it with what was sent (the
 * sample with its metadata neutralised).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { openMedia } from '../../node/index.js';
import type { DemoItem, DemoKeys, DemoStores } from './demo-state.js';
import { sha256File } from './read-all.js';
import type { DemoRecorder } from './report.js';

/**
 * Opens each item's message from the local store and from the HTTP server into `tempRoot` and checks the
 * bytes, size and type, and that `dispose()` removes the verified temp file; `true` when the step ran,
 * `undefined` when it failed.
 */
export async function playBackFromBothStores(
  rec: DemoRecorder,
  items: DemoItem[],
  stores: DemoStores,
  keys: DemoKeys,
  tempRoot: string,
): Promise<true | undefined> {
  return rec.step(
    'Play back every media message from both stores and compare with what was sent',
    async (s) => {
      await mkdir(tempRoot, { recursive: true, mode: 0o700 });
      for (const [storeName, store] of [
        ['local store', stores.local],
        ['HTTP server', stores.http],
      ] as const) {
        for (const item of items) {
          const opened = await openMedia(item.message!, { store, blobKey: keys.blobKey, tempRoot });
          try {
            const sha = await sha256File(opened.path);
            s.check(
              `${item.label} from the ${storeName}: ${basename(opened.path)} (${opened.mimeType}) is byte-equal to what was sent (SHA-256 ${sha.slice(0, 12)}…)`,
              sha === item.sha256 &&
                opened.size === item.probe!.size &&
                opened.mimeType === item.probe!.mimeType,
            );
          } finally {
            await opened.dispose();
          }
          s.check(
            `${item.label} from the ${storeName}: the verified temp file is gone after dispose()`,
            !existsSync(opened.path),
          );
        }
      }
      return true as const;
    },
  );
}
