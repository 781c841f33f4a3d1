/**
 * A send to S3 that resumes, against the real S3-compatible server (scripts/s3-server.sh; source
 * .s3/env; skipped without HAPPY_MEDIA_S3_ENDPOINT): interrupted after two of five parts, the next
 * sendMedia of the same file lists the parts the server holds (ListParts), checks them against the file
 * and uploads only the rest (UploadPart bytes counted), under the same ref; the object plays back. A file
 * changed without its size or time changing makes S3's parts differ: the send starts over under a new
 * ref, saying so, and the old upload is aborted.
 */
import { randomBytes } from 'node:crypto';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMedia } from '../../../src/node/playback/index.js';
import { sendMedia } from '../../../src/node/send/index.js';
import { S3BlobStore } from '../../../src/node/storage/index.js';
import { S3_MIN_PART_BYTES } from '../../../src/node/storage/s3-store.js';
import { makeTempDir } from '../../helpers/tmp.js';

const hasS3 = Boolean(process.env.HAPPY_MEDIA_S3_ENDPOINT);
const prefix = `resume-${Date.now().toString(36)}/`;
const blobKey = new Uint8Array(randomBytes(32));
const FILE_BYTES = 4 * S3_MIN_PART_BYTES + 123_456; // 5 parts of 5 MiB (the last short)

describe.skipIf(!hasS3)('sendMedia to S3, interrupted and resumed (real server)', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let stateHome: string | undefined;
  let uploaded = 0;
  let store: S3BlobStore;
  let client: S3Client;

  beforeAll(async () => {
    tmp = await makeTempDir();
    stateHome = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = join(tmp.dir, 'state');
    client = new S3Client({
      endpoint: process.env.HAPPY_MEDIA_S3_ENDPOINT,
      region: process.env.AWS_REGION ?? 'us-east-1',
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    // Counts the bytes of every part sent.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UploadPartCommand') {
          uploaded += Number((args.input as { ContentLength?: number }).ContentLength ?? 0);
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    store = new S3BlobStore({
      prefix,
      client,
      multipartThreshold: S3_MIN_PART_BYTES,
      partSize: S3_MIN_PART_BYTES,
    });
  });
  afterAll(async () => {
    if (stateHome === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = stateHome;
    await tmp?.cleanup();
  });

  /** Sends `file`, aborted once `after` bytes are stored (never when undefined). */
  async function send(file: string, after?: number, notices: string[] = []) {
    const abort = new AbortController();
    return sendMedia(file, {
      store,
      blobKey,
      signal: abort.signal,
      onNotice: (text) => notices.push(text),
      onProgress: ({ step, done }) => {
        if (after !== undefined && step === 'encrypt-upload' && done >= after) abort.abort();
      },
    });
  }

  async function openUploads(): Promise<string[]> {
    const listed = await client.send(
      new ListMultipartUploadsCommand({ Bucket: store.bucket, Prefix: `${prefix}media/` }),
    );
    return (listed.Uploads ?? []).map((upload) => upload.UploadId as string);
  }

  it('resumes with ListParts, sending only the parts the server does not hold', async () => {
    const file = join(tmp.dir, 'clip.bin');
    const bytes = randomBytes(FILE_BYTES);
    await writeFile(file, bytes);
    uploaded = 0;
    await expect(send(file, 2 * S3_MIN_PART_BYTES)).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(uploaded).toBeGreaterThanOrEqual(2 * S3_MIN_PART_BYTES);
    expect(await openUploads()).toHaveLength(1);
    const heldBefore = uploaded;
    uploaded = 0;
    const notices: string[] = [];
    const sent = await send(file, undefined, notices);
    expect(notices.join('\n')).toMatch(/resuming an interrupted send/);
    const total = sent.ciphertextSize;
    // Only what the server did not hold: at least the two parts confirmed were not sent again.
    expect(uploaded).toBeLessThanOrEqual(total - 2 * S3_MIN_PART_BYTES);
    expect(uploaded + heldBefore).toBeLessThanOrEqual(total + S3_MIN_PART_BYTES);
    expect(await openUploads()).toEqual([]);
    const media = await openMedia(sent.message, { store, blobKey });
    expect(Buffer.from(await readFile(media.path)).equals(bytes)).toBe(true);
    await media.dispose();
  }, 300_000);

  it('a file changed in a part the server holds starts over under a new ref, and the old upload goes', async () => {
    const file = join(tmp.dir, 'changed.bin');
    const bytes = randomBytes(FILE_BYTES);
    await writeFile(file, bytes);
    // A whole second, which every file system keeps exactly.
    const mtime = 1_700_000_000;
    await utimes(file, mtime, mtime);
    await expect(send(file, 2 * S3_MIN_PART_BYTES)).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    const [before] = await openUploads();
    // The same size and modification time, another byte in part 1.
    bytes[1000] = (bytes[1000] as number) ^ 1;
    await writeFile(file, bytes);
    await utimes(file, mtime, mtime);
    uploaded = 0;
    const notices: string[] = [];
    const sent = await send(file, undefined, notices);
    expect(notices.join('\n')).toMatch(/not what the file makes now .* starts over/);
    expect(uploaded).toBeGreaterThanOrEqual(sent.ciphertextSize);
    expect(await openUploads()).not.toContain(before);
    const media = await openMedia(sent.message, { store, blobKey });
    expect(Buffer.from(await readFile(media.path)).equals(bytes)).toBe(true);
    await media.dispose();
  }, 300_000);
});
