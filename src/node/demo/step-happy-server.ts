/**
 * Demo step 8 (optional): send the photo through Happy's own server as v2 and as v1 (what today's app
 * opens) and play it back, when a Happy server is configured.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { decryptV1Blob } from '../../core/envelope/index.js';
import { openMedia } from '../playback/index.js';
import { sha256File } from '../playback/media-cache.js';
import { sendMedia } from '../send/index.js';
import { HappyServerStore } from '../storage/index.js';
import type { DemoItem, DemoKeys, DemoTurn } from './demo-state.js';
import { kib } from './describe.js';
import { createHappyAccount } from './happy-account.js';
import { readAll } from './read-all.js';
import type { DemoRecorder } from './report.js';

/** A running Happy server to send through: its URL, and an existing account's token and session if any. */
export interface HappyServerTarget {
  url: string;
  token?: string;
  sessionId?: string;
}

/** The Happy server named by the environment (`HAPPY_MEDIA_HAPPY_SERVER_URL`, `_TOKEN`, `_SESSION`), if any. */
export function happyServerFromEnv(): HappyServerTarget | undefined {
  const url = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
  if (!url) return undefined;
  return {
    url,
    ...(process.env.HAPPY_MEDIA_TOKEN ? { token: process.env.HAPPY_MEDIA_TOKEN } : {}),
    ...(process.env.HAPPY_MEDIA_SESSION ? { sessionId: process.env.HAPPY_MEDIA_SESSION } : {}),
  };
}

/**
 * Sends the photo through `target` (or the server named by the environment) and checks both formats
 * play back to the original. Without a server it only says how to start one: it is not part of the
 * offline mission, so it is not counted as a skipped part.
 */
export async function sendThroughHappyServer(
  rec: DemoRecorder,
  target: HappyServerTarget | undefined,
  items: DemoItem[],
  keys: DemoKeys,
  { turn }: DemoTurn,
  tempRoot: string,
): Promise<void> {
  await rec.step(
    "Happy's own server: send the photo as v2 and as v1 (what today's app opens), play it back",
    async (s) => {
      const configured = target ?? happyServerFromEnv();
      if (!configured) {
        s.info(
          'no Happy server configured: start one with scripts/happy-server.sh install DIR && scripts/happy-server.sh start DIR, then `. DIR/env` (sets HAPPY_MEDIA_HAPPY_SERVER_URL) and run the demo again',
        );
        return true;
      }
      const account =
        configured.token && configured.sessionId
          ? { url: configured.url, token: configured.token, sessionId: configured.sessionId }
          : await createHappyAccount(configured.url);
      s.info(
        `${account.url}, session ${account.sessionId}${configured.token ? '' : ' (throwaway account: a fresh Ed25519 key pair)'}`,
      );
      const store = new HappyServerStore(account);
      const photo = items.find((i) => i.probe?.kind === 'photo');
      if (!photo) {
        s.skip('no photo sample');
        return true;
      }
      const v2 = await sendMedia(photo.path, {
        store,
        blobKey: keys.blobKey,
        role: 'agent',
        turn,
        sealKey: keys.sealKey,
      });
      s.info(`v2 → ${v2.ref} = ${store.serverRef(v2.ref)} (${kib(v2.ciphertextSize)} ciphertext)`);
      const opened = await openMedia(v2.message, { store, blobKey: keys.blobKey, tempRoot });
      try {
        s.check(
          "v2 photo played back from Happy's server has the original's SHA-256",
          (await sha256File(opened.path)) === photo.sha256,
        );
      } finally {
        await opened.dispose();
      }
      const v1 = await sendMedia(photo.path, { store, blobKey: keys.blobKey, format: 'v1' });
      s.info(`v1 → file event with ref ${v1.message.ev.ref} (${kib(v1.ciphertextSize)} secretbox blob)`);
      const blob = await readAll(await store.get(v1.ref));
      s.check(
        "v1 blob opens with the session blob key as Happy's app opens it (decryptBlob) to the original",
        createHash('sha256').update(decryptV1Blob(blob, keys.blobKey)).digest('hex') === photo.sha256,
      );
      return true;
    },
  );
}
