/**
 * The Claude mapper with Node's send pipeline as its media handler (`sendMediaHandler`: probe →
 * encrypt → upload to a local store): every image of a prompt or a tool result becomes a photo whose
 * blob decrypts to the original bytes; a 20 MB base64 screenshot goes through whole; bad data and a
 * failing store become service notes, never a throw or an invalid stream.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { toBase64 } from '../../../src/envelope.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { type SessionMessage, sendMedia, sendMediaHandler } from '../../../src/node/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import type { BlobStore } from '../../../src/storage.js';
import {
  assistant,
  image,
  prompt,
  resetFixtures,
  text,
  toolResult,
  toolUse,
  userBlocks,
} from '../../core/mappers/claude-fixtures.js';
import { mapValid } from '../../helpers/mappers.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect } from '../storage/store-contract.js';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let store: LocalBlobStore;
const blobKey = new Uint8Array(randomBytes(32));

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-claude-media-');
  store = new LocalBlobStore(join(tmp.dir, 'store'));
});
afterAll(async () => tmp.cleanup());

async function decrypted(ref: string): Promise<Uint8Array> {
  return decryptBlob(await collect(await store.get(ref)), blobKey, { context: mediaBlobContext(ref) });
}

const photos = (messages: readonly SessionMessage[]) =>
  messages.filter((m): m is Extract<SessionMessage, { type: 'photo' }> => m.type === 'photo');

async function png(width: number, height: number, noise = false): Promise<Uint8Array> {
  const raw = noise ? randomBytes(width * height * 3) : Buffer.alloc(width * height * 3, 0x80);
  return new Uint8Array(
    await sharp(raw, { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer(),
  );
}

describe('Claude mapper with the send pipeline', () => {
  it('uploads prompt and tool-result images; each blob decrypts to the original', async () => {
    resetFixtures();
    const shot = await png(6, 4);
    const jpeg = new Uint8Array(
      await sharp(Buffer.alloc(5 * 7 * 3, 0x40), { raw: { width: 5, height: 7, channels: 3 } })
        .jpeg()
        .toBuffer(),
    );
    const uploads: string[] = [];
    const { messages } = await mapValid(
      'claude',
      [
        userBlocks([image(toBase64(shot), 'image/png'), text('What is this?')]),
        assistant('m1', [toolUse('toolu_1', 'Read', { file_path: '/p/a.jpg' })]),
        // Claude Code's Read of an image: no media_type, and one that lies.
        userBlocks([toolResult('toolu_1', [image(toBase64(jpeg)), image(toBase64(shot), 'image/gif')])]),
      ],
      { media: sendMediaHandler({ store, blobKey, onUpload: ({ ref }) => uploads.push(ref) }) },
    );
    const found = photos(messages);
    expect(found.map((m) => [m.role, m.width, m.height, m.parentId])).toEqual([
      ['user', 6, 4, undefined],
      ['agent', 5, 7, 'toolu_1'],
      ['agent', 6, 4, 'toolu_1'],
    ]);
    expect(uploads).toEqual(found.map((m) => m.ref));
    expect(await decrypted(found[0]!.ref)).toEqual(shot);
    expect(await decrypted(found[1]!.ref)).toEqual(jpeg);
    expect(await decrypted(found[2]!.ref)).toEqual(shot);
    // The photo comes after its upload and before the call's end.
    const at = (type: string) =>
      messages.findIndex((m) => m.type === type && m.role === 'agent' && 'callId' in m);
    expect(messages.indexOf(found[2]!)).toBeLessThan(at('tool-call-end'));
  });

  it('sends a 20 MB base64 screenshot whole', async () => {
    resetFixtures();
    const big = await png(2300, 2300, true);
    const data = toBase64(big);
    expect(data.length).toBeGreaterThan(20_000_000);
    const { messages } = await mapValid(
      'claude',
      [
        prompt('screenshot please'),
        assistant('m', [toolUse('t', 'Screenshot', {})]),
        userBlocks([toolResult('t', [image(data, 'image/png')])]),
      ],
      { media: sendMediaHandler({ store, blobKey }) },
    );
    const [photo] = photos(messages);
    expect(photo).toMatchObject({ width: 2300, height: 2300, parentId: 't' });
    const back = await decrypted(photo!.ref);
    expect(back.length).toBe(big.length);
    expect(Buffer.from(back).equals(Buffer.from(big))).toBe(true);
  });

  it('turns invalid base64, undecodable images and a refusing store into service notes', async () => {
    resetFixtures();
    const refusing: BlobStore = {
      ...store,
      create: async () => Promise.reject(new Error('disk full')),
    } as unknown as BlobStore;
    const events = [
      userBlocks([image('not*base64', 'image/png'), text('look')]),
      assistant('m', [toolUse('t', 'Screenshot', {})]),
      userBlocks([toolResult('t', [image(toBase64(await png(3, 3)), 'image/png')])]),
    ];
    const { messages, skipped } = await mapValid('claude', events, {
      media: sendMediaHandler({ store: refusing, blobKey }),
    });
    expect(messages.filter((m) => m.type === 'service').map((m) => (m as { text: string }).text)).toEqual([
      'An image could not be read (its data is not valid base64); it was not uploaded',
      expect.stringMatching(
        /^An image \(image\/png, \d+ B\) could not be uploaded \(ERR_UPLOAD_FAILED\); it is not in the transcript$/,
      ),
    ]);
    expect(skipped.byReason).toEqual({ 'invalid-media': 1, 'media-upload-failed': 1 });
  });

  it('sendMedia takes bytes in memory; the handler checks its options', async () => {
    const bytes = await png(2, 2);
    const { message } = await sendMedia({ bytes, name: 'dot.png' }, { store, blobKey });
    expect(message).toMatchObject({ type: 'photo', width: 2, height: 2 });
    await expect(sendMedia({ bytes: 'x' as never, name: 'a' }, { store, blobKey })).rejects.toThrow(
      InvalidArgumentError,
    );
    expect(() => sendMediaHandler({ store, blobKey: new Uint8Array(3) })).toThrow(InvalidArgumentError);
  });
});
