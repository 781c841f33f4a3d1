/**
 * A multipart upload to S3 that survives its process: the state a send records (the ref, the upload id,
 * the part size and each part's MD5, recorded before the part leaves) lets a later run ask the server
 * which parts it holds (`ListParts`), check them against the bytes made again from the file, and send
 * only the rest before `CompleteMultipartUpload`. The object appears only once complete.
 *
 * What the server holds is trusted only where it matches: a listed part whose recorded MD5 differs from
 * the one made again (the file changed), or whose ETag (an MD5 on plain buckets) differs from it, makes
 * the send start over under a new ref and salt (`restartUploadError`), the old upload aborted. Uploads
 * that nobody resumed are aborted when a new one starts under the same prefix and they are a week old,
 * so their parts do not stay billed and invisible.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { StorageError } from '../../core/errors.js';
import { createMediaRef } from '../../core/protocol/refs.js';
import {
  type ResumableBody,
  type ResumableWriteOptions,
  restartUploadError,
} from '../../core/storage/blob-store.js';
import { readSizedBody, throwIfAborted } from '../../core/storage/sized-body.js';

type S3Module = typeof import('@aws-sdk/client-s3');

/** Incomplete uploads older than this are aborted when a new upload starts under the same prefix. */
export const STALE_S3_UPLOAD_MS = 7 * 24 * 60 * 60 * 1000;

/** What a resumable S3 upload records: no secret (the upload id is useless without credentials). */
const S3UploadState = z.strictObject({
  ref: z.string().max(256),
  uploadId: z.string().min(1).max(1024),
  partSize: z.number().int().positive(),
  /** Hex MD5 of each part, in order, recorded before the part is sent. */
  md5: z.array(z.string().regex(/^[0-9a-f]{32}$/)),
});
type S3UploadState = z.infer<typeof S3UploadState>;

/** What the upload needs of its store. */
export interface S3Target {
  client: S3Client;
  s3: S3Module;
  bucket: string;
  /** The key prefix of the store (`''` or ending in `/`). */
  prefix: string;
  keyOf(ref: string): string;
  /** Maps an SDK error to the library's. */
  fail(error: unknown, signal?: AbortSignal): Error;
}

/** A part the server listed. */
interface ListedPart {
  PartNumber: number;
  ETag: string;
  Size: number;
}

/** The parts the server holds of `uploadId`, or `undefined` when the upload is gone. */
async function listParts(target: S3Target, key: string, uploadId: string): Promise<ListedPart[] | undefined> {
  const parts: ListedPart[] = [];
  let marker: string | undefined;
  for (;;) {
    let page: {
      Parts?: { PartNumber?: number; ETag?: string; Size?: number }[];
      IsTruncated?: boolean;
      NextPartNumberMarker?: string | number;
    };
    try {
      page = await target.client.send(
        new target.s3.ListPartsCommand({
          Bucket: target.bucket,
          Key: key,
          UploadId: uploadId,
          ...(marker === undefined ? {} : { PartNumberMarker: marker }),
        }),
      );
    } catch (error) {
      const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
      if (e?.name === 'NoSuchUpload' || e?.Code === 'NoSuchUpload' || e?.$metadata?.httpStatusCode === 404) {
        return undefined;
      }
      throw target.fail(error);
    }
    for (const part of page.Parts ?? []) {
      if (part.PartNumber !== undefined && part.ETag !== undefined && part.Size !== undefined) {
        parts.push({ PartNumber: part.PartNumber, ETag: part.ETag, Size: part.Size });
      }
    }
    if (!page.IsTruncated || page.NextPartNumberMarker === undefined) break;
    marker = String(page.NextPartNumberMarker);
  }
  return parts.sort((a, b) => a.PartNumber - b.PartNumber);
}

/** Aborts `uploadId` (best effort: a gone upload is fine). */
async function abortUpload(target: S3Target, key: string, uploadId: string): Promise<void> {
  await target.client
    .send(new target.s3.AbortMultipartUploadCommand({ Bucket: target.bucket, Key: key, UploadId: uploadId }))
    .catch(() => undefined);
}

/** Aborts the incomplete uploads under the store's prefix older than {@link STALE_S3_UPLOAD_MS} (best effort). */
async function abortStaleUploads(target: S3Target, now = Date.now()): Promise<void> {
  try {
    const listed = await target.client.send(
      new target.s3.ListMultipartUploadsCommand({ Bucket: target.bucket, Prefix: `${target.prefix}media/` }),
    );
    for (const upload of listed.Uploads ?? []) {
      const started = upload.Initiated?.getTime();
      if (upload.Key && upload.UploadId && started !== undefined && now - started > STALE_S3_UPLOAD_MS) {
        await abortUpload(target, upload.Key, upload.UploadId);
      }
    }
  } catch {
    // A server without ListMultipartUploads, or no right to it: the lifecycle rules are the bucket's.
  }
}

/** The ETag S3 gives a part: its MD5 in quotes on a plain bucket (anything else is not compared). */
function plainMd5(etag: string): string | undefined {
  const match = /^"?([0-9a-f]{32})"?$/.exec(etag.toLowerCase());
  return match?.[1];
}

/**
 * The MD5 of each of the first `parts.length` parts of the bytes `body(ref, 0)` makes (the part sizes
 * the server listed), reading no further.
 */
async function remadeMd5s(
  body: ResumableBody,
  ref: string,
  parts: readonly ListedPart[],
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const held = parts.reduce((sum, part) => sum + part.Size, 0);
  const digests: string[] = [];
  let index = 0;
  let left = parts[0]?.Size ?? 0;
  let hash = createHash('md5');
  const stream = await body(ref, 0);
  const reader = stream.getReader();
  let read = 0;
  try {
    while (read < held) {
      throwIfAborted(signal);
      const { done, value } = await reader.read();
      if (done) break;
      let at = 0;
      while (at < value.length && index < parts.length) {
        const take = Math.min(left, value.length - at);
        hash.update(value.subarray(at, at + take));
        at += take;
        left -= take;
        read += take;
        if (left === 0) {
          digests.push(hash.digest('hex'));
          index += 1;
          hash = createHash('md5');
          left = parts[index]?.Size ?? 0;
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return digests;
}

/**
 * The parts 1, 2, … the server holds in a row, each of the full part size (the last may be short only
 * when it ends the blob); a later one past a gap is sent again.
 */
function partsInARow(listed: readonly ListedPart[], partSize: number, size: number): ListedPart[] {
  const parts: ListedPart[] = [];
  let expected = 1;
  for (const part of listed) {
    if (
      part.PartNumber !== expected ||
      (part.Size !== partSize && part.Size !== size - (expected - 1) * partSize)
    )
      break;
    parts.push(part);
    expected += 1;
  }
  return parts;
}

/**
 * What the server still holds of the recorded upload `state`: `'complete'` when the run that was killed
 * completed it, `'gone'` when it was aborted, else the parts to go on from, each checked against the
 * bytes `body` makes again.
 *
 * @throws {StorageError} {@link restartUploadError} (the upload aborted) when a held part differs from them.
 */
async function resumeUpload(
  target: S3Target,
  size: number,
  body: ResumableBody,
  state: S3UploadState,
  signal: AbortSignal | undefined,
): Promise<ListedPart[] | 'complete' | 'gone'> {
  const key = target.keyOf(state.ref);
  const listed = await listParts(target, key, state.uploadId);
  if (listed === undefined) {
    // Gone: completed by the run that was killed (the object is there), or aborted.
    const head = await target.client
      .send(new target.s3.HeadObjectCommand({ Bucket: target.bucket, Key: key }))
      .catch(() => undefined);
    return head?.ContentLength === size ? 'complete' : 'gone';
  }
  const parts = partsInARow(listed, state.partSize, size);
  const remade = await remadeMd5s(body, state.ref, parts, signal);
  const agrees = parts.every((part, i) => {
    const recorded = state.md5[i];
    const etag = plainMd5(part.ETag);
    return remade[i] !== undefined && recorded === remade[i] && (etag === undefined || etag === remade[i]);
  });
  if (!agrees) {
    await abortUpload(target, key, state.uploadId);
    throw restartUploadError(
      'what S3 holds of the interrupted upload is not what the file makes now (the file changed)',
    );
  }
  return parts;
}

/** Starts a new upload under a new ref, after aborting the stale ones under the store's prefix. */
async function createUpload(
  target: S3Target,
  partSize: number,
  signal: AbortSignal | undefined,
): Promise<S3UploadState> {
  await abortStaleUploads(target);
  const ref = createMediaRef();
  // Not under the signal: an upload created on the server whose id we never read could not be
  // aborted or resumed.
  const created = await target.client
    .send(
      new target.s3.CreateMultipartUploadCommand({
        Bucket: target.bucket,
        Key: target.keyOf(ref),
        ContentType: 'application/octet-stream',
      }),
    )
    .catch((error: unknown) => {
      throw target.fail(error, signal);
    });
  if (!created.UploadId)
    throw new StorageError(
      'the S3 server answered a multipart upload with no UploadId: check that the endpoint is an S3 server',
      { code: 'ERR_UPLOAD_FAILED' },
    );
  return { ref, uploadId: created.UploadId, partSize, md5: [] };
}

/** Sends one part of `upload` and returns the ETag the server gave it. */
async function uploadPart(
  target: S3Target,
  upload: S3UploadState,
  PartNumber: number,
  bytes: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<string> {
  let result: { ETag?: string };
  try {
    result = await target.client.send(
      new target.s3.UploadPartCommand({
        Bucket: target.bucket,
        Key: target.keyOf(upload.ref),
        UploadId: upload.uploadId,
        PartNumber,
        Body: bytes,
        ContentLength: bytes.length,
      }),
      { abortSignal: signal },
    );
  } catch (error) {
    throw target.fail(error, signal);
  }
  if (!result.ETag)
    throw new StorageError(
      'the S3 server stored a part without an ETag: check that the endpoint is an S3 server',
      {
        code: 'ERR_UPLOAD_FAILED',
      },
    );
  return result.ETag;
}

/**
 * Sends the bytes of the blob past the `parts` the server holds, cut into parts of `upload.partSize`
 * (at least one part, so an empty blob has one), each part's MD5 recorded before it leaves; `parts`
 * ends holding every part.
 */
async function sendRemainingParts(
  target: S3Target,
  upload: S3UploadState,
  parts: ListedPart[],
  size: number,
  body: ResumableBody,
  options: ResumableWriteOptions,
): Promise<void> {
  const { signal } = options;
  const held = parts.reduce((sum, part) => sum + part.Size, 0);
  options.onProgress?.(held, size);
  const buffer = new Uint8Array(upload.partSize);
  let filled = 0;
  let sent = held;
  const sendPart = async () => {
    const PartNumber = parts.length + 1;
    const bytes = buffer.subarray(0, filled);
    // Recorded before the part leaves: a run killed while it is sent checks it against this.
    upload.md5.push(createHash('md5').update(bytes).digest('hex'));
    await options.onState(upload);
    const ETag = await uploadPart(target, upload, PartNumber, bytes, signal);
    parts.push({ ETag, PartNumber, Size: filled });
    sent += filled;
    options.onProgress?.(sent, size);
    filled = 0;
  };
  for await (const chunk of readSizedBody(
    await body(upload.ref, held),
    size - held,
    signal ? { signal } : {},
  )) {
    let at = 0;
    while (at < chunk.length) {
      const n = Math.min(upload.partSize - filled, chunk.length - at);
      buffer.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === upload.partSize) await sendPart();
    }
  }
  if (filled > 0 || parts.length === 0) await sendPart();
}

/** Completes `upload` from its `parts`: the object appears under its key. */
async function completeUpload(
  target: S3Target,
  upload: S3UploadState,
  parts: readonly ListedPart[],
): Promise<void> {
  try {
    await target.client.send(
      new target.s3.CompleteMultipartUploadCommand({
        Bucket: target.bucket,
        Key: target.keyOf(upload.ref),
        UploadId: upload.uploadId,
        MultipartUpload: { Parts: parts.map(({ ETag, PartNumber }) => ({ ETag, PartNumber })) },
      }),
    );
  } catch (error) {
    throw target.fail(error);
  }
}

/**
 * Uploads `size` bytes made by `body` as a multipart upload recorded through `options.onState`, going on
 * from `options.resumeFrom` when it names an upload the server still has.
 *
 * @throws {StorageError} {@link restartUploadError} when what the server holds differs from the bytes made
 *   again; the SDK's failures as `ERR_UPLOAD_FAILED`; {AbortedError} when `options.signal` aborts (the
 *   upload stays, for the next run).
 */
export async function resumableMultipart(
  target: S3Target,
  size: number,
  partSize: number,
  body: ResumableBody,
  options: ResumableWriteOptions,
): Promise<{ ref: string }> {
  const { signal } = options;
  const dropped = S3UploadState.safeParse(options.abandon);
  if (dropped.success) {
    await abortUpload(target, target.keyOf(dropped.data.ref), dropped.data.uploadId);
  }
  const resumed = S3UploadState.safeParse(options.resumeFrom);
  let state: S3UploadState | undefined;
  let parts: ListedPart[] = [];
  if (resumed.success) {
    const held = await resumeUpload(target, size, body, resumed.data, signal);
    if (held === 'complete') return { ref: resumed.data.ref };
    if (held !== 'gone') {
      state = resumed.data;
      parts = held;
    }
  }
  state ??= await createUpload(target, partSize, signal);
  const upload: S3UploadState = { ...state, md5: state.md5.slice(0, parts.length) };
  await options.onState(upload);
  await sendRemainingParts(target, upload, parts, size, body, options);
  throwIfAborted(signal);
  await completeUpload(target, upload, parts);
  return { ref: upload.ref };
}
