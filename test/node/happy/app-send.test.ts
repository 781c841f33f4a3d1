/**
 * Happy's app sending media with only what it ships, against Happy's REAL server
 * (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped without it). The app side runs with expo-crypto's own web AES
 * installed as the runtime's cipher (as the app installs `expoCryptoAesGcm(ExpoCrypto)`; the universal
 * defaults for the rest): the picked files are read through `expoFileSource` from an expo-file-system
 * file, the photo's ThumbHash comes from the ≤ 100 px JPEG an image manipulator saves (`thumbnail`,
 * decoded in pure JS), each goes through the universal send path (`sendPickedMedia` into the session's
 * `HappyServerStore`), and `appendMessages` seals the messages. Then a Node client (another sign-in with
 * the same secret, over node:crypto) reads the transcript back and downloads each blob to the original
 * bytes.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { expoCryptoAesGcm } from '../../../src/core/aes-gcm/expo-crypto.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { createAccountSecret, HappyClient, type HappySession } from '../../../src/core/happy/index.js';
import { thumbhashFromImage } from '../../../src/core/media/index.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';
import type { Runtime } from '../../../src/core/runtime/runtime.js';
import { sendPickedMedia } from '../../../src/core/send/index.js';
import { EXPO_READ_BYTES } from '../../../src/expo/file-source.js';
import { expoFileSource } from '../../../src/expo/index.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { loadExpoCryptoAes } from '../../helpers/expo-crypto.js';
import { fakeExpoFileSystem } from '../../helpers/fake-expo-file-system.js';
import { withRuntime } from '../../helpers/installed.js';
import { makePng } from '../playback/helpers/samples.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) console.warn('app-send.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set');

describe.skipIf(!SERVER)("the app's send path against Happy's real server (expo-crypto's AES)", () => {
  const secret = createAccountSecret();
  let app: Partial<Runtime>;
  /** Runs `fn` as Happy's app would: expo-crypto as the runtime's AES-GCM, the universal rest. */
  const asApp = <T>(fn: () => Promise<T>) => withRuntime(app, fn);
  /** Runs `fn` as Happy's CLI would: Node's runtime (node:crypto). */
  const asNode = <T>(fn: () => Promise<T>) => withRuntime(nodeRuntime, fn);

  beforeAll(async () => {
    app = { aesGcm: expoCryptoAesGcm(await loadExpoCryptoAes()) };
  });

  it('sends a photo, a video and a document from the app; the Node client reads the transcript and downloads each', async () => {
    const fs = fakeExpoFileSystem();
    const picked = (name: string, bytes: Uint8Array) => {
      const file = new fs.File(fs.Paths.cache, name);
      file.create();
      file.write(bytes);
      return file;
    };
    const photo = await makePng(640, 480);
    // What expo-image-manipulator saves for the placeholder: the picture shrunk to ≤ 100 px, as JPEG.
    const small = new Uint8Array(await sharp(photo).resize(100, 100, { fit: 'inside' }).jpeg().toBuffer());
    // The video's bytes only travel (the server and the send path do not decode them).
    const clip = randomBytes(700_000);
    const document = randomBytes(300_000);

    const { session, sent, appended } = await asApp(async () => {
      const client = await HappyClient.connect({
        url: SERVER as string,
        credentials: { kind: 'secret', secret },
      });
      const session: HappySession = await client.createSession({
        metadata: { path: '/app', host: 'phone', name: 'app send' },
      });
      const options = { store: client.attachmentStore(session), blobKey: session.blobKey };
      const sent = [
        await sendPickedMedia(
          {
            source: expoFileSource(picked('IMG_0001.png', photo)),
            name: 'IMG_0001.png',
            mimeType: 'image/png',
            width: 640,
            height: 480,
            thumbnail: small,
          },
          options,
        ),
        await sendPickedMedia(
          {
            source: expoFileSource(picked('clip.mp4', clip)),
            name: 'clip.mp4',
            mimeType: 'video/mp4',
            width: 1920,
            height: 1080,
            durationMs: 3000,
            thumbnail: small,
          },
          options,
        ),
        await sendPickedMedia(
          {
            source: expoFileSource(picked('report.pdf', document)),
            name: 'report.pdf',
            mimeType: 'application/pdf',
          },
          options,
        ),
      ];
      const appended = await client.appendMessages(
        session,
        sent.map((s) => s.message),
      );
      return { session, sent, appended };
    });
    expect(sent.map((s) => s.message.type)).toEqual(['photo', 'video', 'file']);
    for (const { ref } of sent) expect(ref).toMatch(/^media\/[0-9a-f-]{36}$/);
    expect(appended.map((a) => a.seq)).toEqual([1, 2, 3]);
    const thumbhash = await thumbhashFromImage(small);
    expect(sent[0]?.message).toMatchObject({ thumbhash, width: 640, height: 480 });
    // Every file was read in native calls of 256 KiB (the last one shorter, then one byte to prove the end),
    // after the metadata stripper's look at its first bytes through the source's random access (these are
    // random bytes, not an MP4: nothing more to read).
    expect(fs.openHandles.size).toBe(0);
    const reads = fs.calls.filter((c) => c.op === 'readBytes' && c.path.endsWith('clip.mp4'));
    expect(reads.map((c) => c.bytes)).toEqual([
      12,
      EXPO_READ_BYTES,
      EXPO_READ_BYTES,
      clip.length - 2 * EXPO_READ_BYTES,
      1,
    ]);

    const { read, played } = await asNode(async () => {
      const cli = await HappyClient.connect({
        url: SERVER as string,
        credentials: { kind: 'secret', secret },
      });
      const opened = await cli.openSession(session.id);
      const read: SessionMessage[] = [];
      for await (const record of cli.readMessages(opened)) read.push(...record.messages);
      const played = [];
      for (const message of read) {
        played.push(
          await downloadMedia(message, {
            source: cli.attachmentStore(opened),
            blobKey: opened.blobKey,
            sink: memorySink(),
          }),
        );
      }
      return { read, played };
    });
    expect(read).toEqual(sent.map((s) => s.message));
    expect(played).toEqual([photo, clip, document]);
  });
});
