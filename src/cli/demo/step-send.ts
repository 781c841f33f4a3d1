/**
 * Demo step 5: send every sample (probe → streaming encrypt → upload → v2 message → sealed envelope)
 * and mirror its ciphertext to the HTTP server.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ciphertextSize } from '../../blob.js';
import { sendMedia } from '../../node/index.js';
import type { DemoItem, DemoKeys, DemoStores, DemoTurn } from './demo-state.js';
import { kib } from './describe.js';
import { readAll } from './read-all.js';
import type { DemoRecorder } from './report.js';

/** Sends each item (filling in `item.message`); `true` when the step ran, `undefined` when it failed. */
export async function sendSamples(
  rec: DemoRecorder,
  items: DemoItem[],
  stores: DemoStores,
  keys: DemoKeys,
  { turn }: DemoTurn,
): Promise<true | undefined> {
  return rec.step('Send: probe → encrypt (streaming) → upload → v2 message → sealed envelope', async (s) => {
    for (const item of items) {
      const result = await sendMedia(item.path, {
        store: stores.local,
        blobKey: keys.blobKey,
        role: 'agent',
        turn,
        sealKey: keys.sealKey,
      });
      item.message = result.message;
      const size = (await stat(item.path)).size;
      const stored = await stores.local.head(result.ref);
      s.info(
        `${basename(item.path).padEnd(18)} → ${result.ref} (${kib(stored.size)} ciphertext), ${result.message.type} message`,
      );
      s.check(
        `${item.label}: stored size is ciphertextSize(${size}) = ${ciphertextSize(size)}`,
        stored.size === ciphertextSize(size) && result.ciphertextSize === stored.size,
      );
      // 32 bytes from inside the original (past any common header) must not appear in the stored blob.
      const blob = await readAll(await stores.local.get(result.ref));
      const plain = await readFile(item.path);
      const probe = plain.subarray(Math.min(1024, plain.length - 32), Math.min(1024, plain.length - 32) + 32);
      s.check(
        `${item.label}: the stored blob contains no plaintext`,
        Buffer.from(blob).indexOf(probe) === -1,
      );
      s.check(
        `${item.label}: the message comes with a sealed envelope { t: 'encrypted', c }`,
        result.envelope?.t === 'encrypted' && typeof result.envelope.c === 'string',
      );
      // Mirror the ciphertext to the HTTP server under the same ref: the message is valid for both stores.
      await stores.http.put(result.ref, await stores.local.get(result.ref), stored.size);
      s.check(
        `${item.label}: mirrored to the HTTP server (same ref, same size)`,
        (await stores.http.head(result.ref)).size === stored.size,
      );
    }
    return true as const;
  });
}
