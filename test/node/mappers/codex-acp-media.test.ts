/**
 * The Codex and ACP mappers with Node's real send pipeline as their media handler (probe → encrypt →
 * upload to a local store): every image and embedded file of the fixtures becomes a message whose
 * blob, fetched from the store and decrypted, is byte for byte the provider's original, and whose
 * probe fields (type, dimensions, ThumbHash) describe it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import type { MediaHandler, SessionMessage } from '../../../src/index.js';
import { sendMediaHandler } from '../../../src/node/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import { base64Bytes, readFixture } from '../../helpers/mapped-stream.js';
import { mapValid, sequentialIds, steppingClock } from '../../helpers/mappers.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect } from '../storage/store-contract.js';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let store: LocalBlobStore;
const blobKey = new Uint8Array(randomBytes(32));

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-mappers-');
  store = new LocalBlobStore(join(tmp.dir, 'store'));
});
afterAll(async () => tmp.cleanup());

/** Node's pipeline as the mappers' media handler (the store is made in beforeAll). */
const media: MediaHandler = (upload, options) => sendMediaHandler({ store, blobKey })(upload, options);

async function decrypted(ref: string): Promise<Uint8Array> {
  return decryptBlob(await collect(await store.get(ref)), blobKey, { context: mediaBlobContext(ref) });
}

function uploadedMedia(messages: readonly SessionMessage[]) {
  return messages.filter(
    (m): m is Extract<SessionMessage, { type: 'photo' | 'file' }> =>
      (m.type === 'photo' || m.type === 'file') && m.ref.startsWith('media/'),
  );
}

const RED_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEElEQVQImWM4oaEBRww4OQAHpg0heFEebgAAAABJRU5ErkJggg==';
const BLUE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAAFCAYAAABvsz2cAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWPgqvjQAMIMRDAArKwTdSuC1eMAAAAASUVORK5CYII=';

describe('mapping with the real send pipeline', () => {
  it('codex: every image decrypts to the original, as a photo of its size', async () => {
    const { messages } = await mapValid(
      'codex',
      ['codex/exec-json.jsonl', 'codex/rollout.jsonl', 'codex/events-approvals.jsonl'].flatMap(readFixture),
      { media, clock: steppingClock(), createId: sequentialIds() },
    );
    const uploaded = uploadedMedia(messages);
    expect(uploaded.map((m) => m.type)).toEqual(['photo', 'photo', 'photo', 'photo']);
    expect(uploaded.map((m) => (m.type === 'photo' ? [m.width, m.height] : []))).toEqual([
      [4, 3],
      [2, 5],
      [3, 3],
      [2, 5],
    ]);
    expect(await decrypted(uploaded[0]!.ref)).toEqual(base64Bytes(RED_PNG));
    expect(await decrypted(uploaded[1]!.ref)).toEqual(base64Bytes(BLUE_PNG));
    expect((await decrypted(uploaded[2]!.ref))[0]).toBe(0xff); // the JPEG
    expect(await decrypted(uploaded[3]!.ref)).toEqual(base64Bytes(BLUE_PNG));
  });

  it('acp: images and the embedded file decrypt to the originals', async () => {
    const events = ['acp/prompt-turn.jsonl', 'acp/load-replay.jsonl'].flatMap(readFixture);
    const { messages } = await mapValid('acp', events, {
      media,
      clock: steppingClock(),
      createId: sequentialIds(),
    });
    const uploaded = uploadedMedia(messages);
    expect(uploaded.map((m) => m.type)).toEqual(['photo', 'file', 'photo', 'photo', 'photo', 'photo']);
    expect(await decrypted(uploaded[0]!.ref)).toEqual(base64Bytes(RED_PNG));
    expect(new TextDecoder().decode(await decrypted(uploaded[1]!.ref))).toBe('{\n  "debug": false\n}\n');
    expect(uploaded[1]).toMatchObject({ name: 'config.json' });
    expect(await decrypted(uploaded[2]!.ref)).toEqual(base64Bytes(BLUE_PNG));
    expect(await decrypted(uploaded[4]!.ref)).toEqual(base64Bytes(BLUE_PNG));
    expect(await decrypted(uploaded[5]!.ref)).toEqual(base64Bytes(RED_PNG));
    for (const message of uploaded) {
      if (message.type === 'photo') expect(message.thumbhash.length).toBeGreaterThan(8);
    }
  });
});
