/**
 * S3-compatible object storage as a {@link BlobStore} (AWS S3, MinIO, Ceph radosgw, Swift s3api).
 *
 * The SDK (`@aws-sdk/client-s3`) lives behind this one module and is imported lazily, so the CLI and
 * the other stores do not pay for loading it. Two settings matter with real servers (measured, see
 * docs/storage.md): checksums only `WHEN_REQUIRED` (otherwise a streamed PutObject is sent
 * `aws-chunked`, which Swift and radosgw refuse and some fakes store with framing bytes) and the exact
 * `ContentLength`; path-style addressing for custom endpoints.
 *
 * Memory is bounded by one part buffer: a blob up to `multipartThreshold` is read into one buffer and
 * sent with one PutObject (retryable by the SDK); a larger one is sent as a multipart upload, one part
 * buffer at a time, and the upload is aborted on any failure so no parts are left behind.
 *
 * @module
 */
import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { AbortedError, HappyMediaError, InvalidArgumentError, StorageError } from '../../core/errors.js';
import {
  type BlobBody,
  type BlobRange,
  type BlobStore,
  checkRange,
  clipRange,
  createWithPut,
  emptyStream,
  type GetOptions,
  mediaRefId,
  type ResumableBody,
  type ResumableWriteOptions,
  type WriteOptions,
} from '../../core/storage/blob-store.js';
import { readSizedBody, throwIfAborted } from '../../core/storage/sized-body.js';
import { isRetryableStatus, markRetryable } from '../../core/transport/retry.js';
import { importOptional } from '../optional-dependency.js';
import { nodeReadableToWeb } from './node-readable.js';
import { resumableMultipart } from './s3-resumable.js';

/** Smallest part S3 accepts (except the last). */
export const S3_MIN_PART_BYTES = 5 * 1024 * 1024;
/** Most parts one multipart upload may have. */
export const S3_MAX_PARTS = 10_000;
/** Default part size of multipart uploads (and the single-PUT threshold). */
export const DEFAULT_S3_PART_BYTES = 8 * 1024 * 1024;

/** Options of {@link S3BlobStore}. Unset fields fall back to the environment (see each field). */
export interface S3BlobStoreOptions {
  /** Bucket name; else `HAPPY_MEDIA_S3_BUCKET`. */
  bucket?: string;
  /** Key prefix inside the bucket, e.g. `happy/` (keys are `<prefix>media/<id>`). */
  prefix?: string;
  /** Endpoint URL for non-AWS servers; else `HAPPY_MEDIA_S3_ENDPOINT`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`. */
  endpoint?: string;
  /** Region; else `AWS_REGION`, `AWS_DEFAULT_REGION`, or `us-east-1`. */
  region?: string;
  /** Credentials; else the SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profiles, ...). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Path-style URLs (`endpoint/bucket/key`); default true when an endpoint is set. */
  forcePathStyle?: boolean;
  /** Blobs larger than this go multipart (default 8 MiB, at least 5 MiB). */
  multipartThreshold?: number;
  /** Part size of multipart uploads (default 8 MiB, at least 5 MiB; grown to fit 10 000 parts). */
  partSize?: number;
  /** A ready client to use instead of building one (its config is then the caller's business). */
  client?: S3Client;
}

type S3Module = typeof import('@aws-sdk/client-s3');
let s3Module: Promise<S3Module> | undefined;
function loadS3(): Promise<S3Module> {
  s3Module ??= importOptional('@aws-sdk/client-s3', 'the S3 store', () => import('@aws-sdk/client-s3'));
  return s3Module;
}

interface SdkError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function statusOf(error: unknown): number | undefined {
  return (error as SdkError | undefined)?.$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  const e = error as SdkError | undefined;
  return (
    e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.Code === 'NoSuchKey' || statusOf(error) === 404
  );
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || (error as SdkError | undefined)?.name === 'AbortError';
}

/**
 * A {@link BlobStore} in an S3 bucket.
 *
 * @example
 * ```ts
 * const store = new S3BlobStore({ bucket: 'happy', prefix: 'media-store/', endpoint: 'http://127.0.0.1:9000' });
 * await store.put(ref, encrypted, ciphertextSize(file.size));
 * ```
 */
export class S3BlobStore implements BlobStore {
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix ('' or ending in `/`). */
  readonly prefix: string;
  /** The bucket and prefix, and the endpoint when not AWS's (`s3://bucket/prefix/ at http://…`). */
  readonly location: string;
  private readonly options: S3BlobStoreOptions;
  private readonly multipartThreshold: number;
  private readonly partSize: number;
  private client: Promise<S3Client> | undefined;

  /**
   * @throws {InvalidArgumentError} when no bucket is given or set in the environment, or a size option is
   *   out of range.
   */
  constructor(options: S3BlobStoreOptions = {}) {
    const bucket = options.bucket ?? process.env.HAPPY_MEDIA_S3_BUCKET;
    if (!bucket || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new InvalidArgumentError(
        'expected an S3 bucket name (3-63 characters a-z 0-9 . -) for `bucket` or HAPPY_MEDIA_S3_BUCKET but received ' +
          (bucket ? 'an invalid name' : 'none'),
      );
    }
    this.bucket = bucket;
    const prefix = (options.prefix ?? '').replace(/^\/+/, '');
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.options = options;
    const endpoint =
      options.endpoint ?? process.env.HAPPY_MEDIA_S3_ENDPOINT ?? process.env.AWS_ENDPOINT_URL_S3;
    this.location = `s3://${bucket}/${this.prefix}${endpoint ? ` at ${endpoint}` : ''}`;
    this.partSize = assertNonNegativeInteger(options.partSize ?? DEFAULT_S3_PART_BYTES, 'partSize');
    this.multipartThreshold = assertNonNegativeInteger(
      options.multipartThreshold ?? DEFAULT_S3_PART_BYTES,
      'multipartThreshold',
    );
    if (this.partSize < S3_MIN_PART_BYTES) {
      throw new InvalidArgumentError(
        `expected at least ${S3_MIN_PART_BYTES} bytes for \`partSize\` but received ${this.partSize}`,
      );
    }
  }

  /**
   * Checks that the store can sign its requests: credentials from the options, or from the AWS SDK's
   * chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, the machine's role), so a
   * server about to serve this store fails at once, saying what is missing, instead of at its first
   * request. Nothing is sent to the bucket.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when no credentials are found.
   * @example
   * ```ts
   * await new S3BlobStore({ bucket: 'media' }).assertConfigured();
   * ```
   */
  async assertConfigured(): Promise<void> {
    if (this.options.client || this.options.credentials) return;
    const client = await this.getClient();
    try {
      await client.config.credentials();
    } catch (cause) {
      throw new InvalidArgumentError(
        `expected S3 credentials for bucket ${this.bucket} but found none: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), and HAPPY_MEDIA_S3_ENDPOINT for an S3 server other than AWS`,
        { cause },
      );
    }
  }

  /** Object key of a ref (validated). */
  keyOf(ref: string): string {
    mediaRefId(ref);
    return `${this.prefix}${ref}`;
  }

  private getClient(): Promise<S3Client> {
    this.client ??= (async () => {
      if (this.options.client) return this.options.client;
      const { S3Client } = await loadS3();
      const env = process.env;
      const endpoint =
        this.options.endpoint ??
        env.HAPPY_MEDIA_S3_ENDPOINT ??
        env.AWS_ENDPOINT_URL_S3 ??
        env.AWS_ENDPOINT_URL;
      const config: S3ClientConfig = {
        region: this.options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
        forcePathStyle: this.options.forcePathStyle ?? endpoint !== undefined,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      };
      if (endpoint) config.endpoint = endpoint;
      if (this.options.credentials) config.credentials = this.options.credentials;
      return new S3Client(config);
    })();
    return this.client;
  }

  private fail(
    error: unknown,
    action: string,
    ref: string,
    code: 'ERR_UPLOAD_FAILED' | 'ERR_DOWNLOAD_FAILED' | 'ERR_STORAGE',
    signal?: AbortSignal,
  ): HappyMediaError {
    if (error instanceof HappyMediaError) return error;
    if (isAbort(error, signal))
      return new AbortedError(`the ${action} was aborted`, { cause: signal?.reason });
    if (isMissing(error))
      return new StorageError(`no blob is stored under ${ref}`, { code: 'ERR_NOT_FOUND' });
    const e = error as SdkError & { message?: string };
    const status = statusOf(error);
    // The SDK's message can quote the request; keep only the error's name and status.
    const failed = new StorageError(
      `S3 ${action} in bucket ${this.bucket} failed (${e?.name ?? 'error'}${status ? `, HTTP ${status}` : ''}); check the endpoint, bucket and credentials`,
      { code, cause: error },
    );
    // The SDK has already retried what it retries; a download over this store may still resume after a
    // network failure (no status) or a status that heals, never after a refusal (403, a bad bucket).
    return status === undefined || isRetryableStatus(status) ? markRetryable(failed) : failed;
  }

  /**
   * Stores a new blob of exactly `size` bytes under a fresh ref (`media/<cuid2>`) and returns it once
   * stored: one PutObject or a multipart upload under a fresh `media/<id>`. `body(ref)` is called before the first byte is read.
   *
   * @throws the errors of {@link S3BlobStore.put}.
   * @example
   * ```ts
   * const { ref } = await store.create(ciphertextSize(n), (ref) =>
   *   plaintext.pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) })));
   * ```
   */
  create(size: number, body: BlobBody, options?: WriteOptions): Promise<{ ref: string }> {
    return createWithPut(this, size, body, options);
  }

  /**
   * {@link S3BlobStore.create} that survives its process: above `multipartThreshold`, a multipart upload
   * whose state (ref, upload id, part size, each part's MD5) goes to `options.onState` before each part;
   * given back as `resumeFrom`, the parts the server lists are checked against the bytes `body` makes
   * again and only the rest is sent (s3-resumable.ts). Up to the threshold, one PutObject as `create`.
   *
   * @throws {StorageError} `restartUploadError` when what the server holds differs from what `body` makes;
   *   `ERR_UPLOAD_FAILED` otherwise. {AbortedError} `ERR_ABORTED` (the upload stays, to be resumed).
   */
  async createResumable(
    size: number,
    body: ResumableBody,
    options: ResumableWriteOptions,
  ): Promise<{ ref: string }> {
    assertNonNegativeInteger(size, 'size');
    throwIfAborted(options.signal);
    if (size <= this.multipartThreshold) return this.create(size, (ref) => body(ref, 0), options);
    const client = await this.getClient();
    const s3 = await loadS3();
    return resumableMultipart(
      {
        client,
        s3,
        bucket: this.bucket,
        prefix: this.prefix,
        keyOf: (ref) => this.keyOf(ref),
        fail: (error, signal) => this.fail(error, 'upload', 'the upload', 'ERR_UPLOAD_FAILED', signal),
      },
      size,
      Math.max(this.partSize, Math.ceil(size / S3_MAX_PARTS)),
      body,
      options,
    );
  }

  /**
   * Uploads exactly `size` bytes: one PutObject up to `multipartThreshold`, multipart above.
   *
   * @throws {StorageError} `ERR_UPLOAD_FAILED` (length mismatch, server refused), `ERR_INVALID_REF`.
   * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts (a multipart upload is aborted too).
   */
  async put(
    ref: string,
    body: ReadableStream<Uint8Array>,
    size: number,
    options: WriteOptions = {},
  ): Promise<void> {
    const key = this.keyOf(ref);
    assertNonNegativeInteger(size, 'size');
    throwIfAborted(options.signal);
    const client = await this.getClient();
    const s3 = await loadS3();
    if (size <= this.multipartThreshold) {
      const buffer = new Uint8Array(size);
      let filled = 0;
      // Progress counts bytes read here; the PUT itself follows at once.
      for await (const chunk of readSizedBody(body, size, options)) {
        buffer.set(chunk, filled);
        filled += chunk.length;
      }
      try {
        await client.send(
          new s3.PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: buffer,
            ContentLength: size,
            ContentType: 'application/octet-stream',
          }),
          { abortSignal: options.signal },
        );
      } catch (error) {
        if (isAbort(error, options.signal)) {
          // The server may have stored the whole body before the abort cut the response: remove it.
          await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key })).catch(() => {});
        }
        throw this.fail(error, 'upload', ref, 'ERR_UPLOAD_FAILED', options.signal);
      }
      return;
    }
    await this.putMultipart(client, s3, ref, key, body, size, options);
  }

  private async putMultipart(
    client: S3Client,
    s3: S3Module,
    ref: string,
    key: string,
    body: ReadableStream<Uint8Array>,
    size: number,
    options: WriteOptions,
  ): Promise<void> {
    const partSize = Math.max(this.partSize, Math.ceil(size / S3_MAX_PARTS));
    let uploadId: string | undefined;
    try {
      // Not under the signal: an upload created on the server whose id we never read could not be
      // aborted. The signal is checked right after instead.
      const created = await client.send(
        new s3.CreateMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          ContentType: 'application/octet-stream',
        }),
      );
      uploadId = created.UploadId;
      if (!uploadId)
        throw new StorageError('the S3 server returned no UploadId', { code: 'ERR_UPLOAD_FAILED' });
      throwIfAborted(options.signal);
      const parts: { ETag: string; PartNumber: number }[] = [];
      const buffer = new Uint8Array(partSize);
      let filled = 0;
      const sendPart = async () => {
        const PartNumber = parts.length + 1;
        const result = await client.send(
          new s3.UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber,
            Body: buffer.subarray(0, filled),
            ContentLength: filled,
          }),
          { abortSignal: options.signal },
        );
        if (!result.ETag)
          throw new StorageError('the S3 server returned no ETag for a part', { code: 'ERR_UPLOAD_FAILED' });
        parts.push({ ETag: result.ETag, PartNumber });
        filled = 0;
      };
      // The reader's progress runs ahead of the upload by at most one part.
      for await (const chunk of readSizedBody(body, size, options)) {
        let at = 0;
        while (at < chunk.length) {
          const n = Math.min(partSize - filled, chunk.length - at);
          buffer.set(chunk.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === partSize) await sendPart();
        }
      }
      if (filled > 0 || parts.length === 0) await sendPart();
      throwIfAborted(options.signal);
      // Not under the signal either: a completion cut mid-way could leave the object stored while we
      // report an abort. With all parts up, completing is quick and final.
      await client.send(
        new s3.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      if (uploadId) {
        // Without this the parts would stay billed and invisible; not under the caller's signal.
        await client
          .send(new s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }))
          .catch(() => {});
      }
      throw this.fail(error, 'upload', ref, 'ERR_UPLOAD_FAILED', options.signal);
    }
  }

  /**
   * Streams the blob or one range of it (a ranged GetObject).
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent; `ERR_DOWNLOAD_FAILED` otherwise.
   * @throws {InvalidArgumentError} for a range starting past the end.
   */
  async get(ref: string, range?: BlobRange, options: GetOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const key = this.keyOf(ref);
    checkRange(range);
    if (range) {
      // S3 answers 416 for any range starting at or past the end, and cannot express an empty range.
      const { size } = await this.head(ref);
      const clipped = clipRange(range, size);
      if (clipped.length === 0) return emptyStream();
      range = clipped;
    }
    const client = await this.getClient();
    const s3 = await loadS3();
    try {
      const result = await client.send(
        new s3.GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.offset}-${range.offset + range.length - 1}` : undefined,
        }),
        { abortSignal: options.signal },
      );
      if (!result.Body) throw new StorageError('the S3 server sent no body', { code: 'ERR_DOWNLOAD_FAILED' });
      // In Node the body is an IncomingMessage; read it with backpressure rather than via transformToWebStream.
      const body = result.Body as unknown;
      if (body instanceof Readable) return nodeReadableToWeb(body);
      return result.Body.transformToWebStream() as ReadableStream<Uint8Array>;
    } catch (error) {
      throw this.fail(error, 'download', ref, 'ERR_DOWNLOAD_FAILED', options.signal);
    }
  }

  /**
   * Size of the stored blob (HeadObject).
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent.
   */
  async head(ref: string): Promise<{ size: number }> {
    const key = this.keyOf(ref);
    const client = await this.getClient();
    const s3 = await loadS3();
    try {
      const result = await client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      const size = result.ContentLength;
      if (size === undefined || !Number.isSafeInteger(size) || size < 0) {
        throw new StorageError('the S3 server sent no valid ContentLength', { code: 'ERR_DOWNLOAD_FAILED' });
      }
      return { size };
    } catch (error) {
      throw this.fail(error, 'head', ref, 'ERR_DOWNLOAD_FAILED');
    }
  }

  /** Deletes the blob; a missing ref is not an error. */
  async delete(ref: string): Promise<void> {
    const key = this.keyOf(ref);
    const client = await this.getClient();
    const s3 = await loadS3();
    try {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isMissing(error)) return;
      throw this.fail(error, 'delete', ref, 'ERR_STORAGE');
    }
  }
}
