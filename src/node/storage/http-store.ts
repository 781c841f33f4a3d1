/**
 * The client of the media server (`happy-media serve`), as a {@link BlobStore}.
 *
 * Uploads go through `node:http`/`node:https` rather than `fetch`, because an upload must announce its
 * exact `Content-Length` and stream the body with backpressure; `fetch` would send a stream chunked.
 * Downloads use `fetch`, whose body is already a Web stream.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import {
  AbortedError,
  HappyMediaError,
  InvalidArgumentError,
  LimitError,
  StorageError,
} from '../../core/errors.js';
import { createMediaRef, isMediaRef } from '../../core/protocol/refs.js';
import {
  type BlobBody,
  type BlobRange,
  type BlobStore,
  checkRange,
  createWithPut,
  emptyStream,
  type GetOptions,
  isRestartUpload,
  mediaRefId,
  type ResumableBody,
  type ResumableWriteOptions,
  restartUploadError,
  type WriteOptions,
} from '../../core/storage/blob-store.js';
import { lengthMismatch, readSizedBody, throwIfAborted } from '../../core/storage/sized-body.js';
import { checkedTimeoutMs, requestSignal } from '../../core/timeout.js';
import { parseHttpBaseUrl } from '../../core/transport/base-url.js';
import { checkBearerToken } from '../../core/transport/bearer-token.js';
import { fetchRange } from '../../core/transport/fetch-range.js';
import { fetchSize } from '../../core/transport/fetch-size.js';
import { isRetryableStatus, markRetryable, RetryBudget } from '../../core/transport/retry.js';
import { BLOB_ROUTE_PREFIX, UPLOAD_ROUTE_PREFIX } from './media-server.js';

/** Options of {@link HttpBlobStore}. */
export interface HttpBlobStoreOptions {
  /** Bearer token the server was started with. */
  token?: string;
  /** Time without any response before a request fails, in ms (default 60 000; `0`: no limit). */
  timeoutMs?: number;
}

async function readErrorBody(response: Response | IncomingMessage): Promise<string> {
  try {
    let text: string;
    if (response instanceof Response) {
      text = await response.text();
    } else {
      const parts: Buffer[] = [];
      let total = 0;
      for await (const part of response as AsyncIterable<Buffer>) {
        total += part.length;
        if (total > 64 * 1024) break;
        parts.push(part);
      }
      text = Buffer.concat(parts).toString('utf8');
    }
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 500) : '';
  } catch {
    return '';
  }
}

/** Maps an HTTP error status of the media server to the library's errors. */
function errorForStatus(status: number, detail: string, ref: string, upload: boolean): HappyMediaError {
  const suffix = detail ? `: ${detail}` : '';
  if (status === 404) return new StorageError(`no blob is stored under ${ref}`, { code: 'ERR_NOT_FOUND' });
  if (status === 401 || status === 403) {
    return new StorageError(`the media server refused the request (${status}); check the token${suffix}`, {
      code: upload ? 'ERR_UPLOAD_FAILED' : 'ERR_DOWNLOAD_FAILED',
    });
  }
  if (status === 413) return new LimitError(`the media server refused the upload as too large${suffix}`);
  if (status === 416) {
    return new InvalidArgumentError(`the media server could not satisfy the byte range${suffix}`);
  }
  const error = new StorageError(`the media server answered ${status}${suffix}`, {
    code: upload ? 'ERR_UPLOAD_FAILED' : 'ERR_DOWNLOAD_FAILED',
  });
  return isRetryableStatus(status) ? markRetryable(error) : error;
}

/**
 * A {@link BlobStore} that talks to a media server over HTTP(S).
 *
 * @example
 * ```ts
 * const store = new HttpBlobStore('http://127.0.0.1:8787', { token: process.env.HAPPY_MEDIA_TOKEN });
 * await store.put(ref, encrypted, size, { onProgress: (done, total) => bar.update(done / total) });
 * ```
 */
export class HttpBlobStore implements BlobStore {
  /** Base URL of the server, without a trailing slash. */
  readonly baseUrl: string;
  /** Where the blobs go: the server's base URL. */
  readonly location: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  /**
   * @param baseUrl `http://` or `https://` URL of the server (as printed by `happy-media serve`).
   * @throws {InvalidArgumentError} for a URL that is not http(s) or carries credentials, or bad options.
   */
  constructor(baseUrl: string, options: HttpBlobStoreOptions = {}) {
    const url = parseHttpBaseUrl(baseUrl, 'baseUrl');
    if (options.token !== undefined && typeof options.token !== 'string') {
      throw new InvalidArgumentError('expected a non-empty string for `token`');
    }
    if (options.token !== undefined) checkBearerToken(options.token, 'token');
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.location = this.baseUrl;
    this.token = options.token;
    this.timeoutMs = checkedTimeoutMs(options.timeoutMs ?? 60_000, 'timeoutMs');
  }

  /** URL of a ref's blob (validated). */
  urlOf(ref: string): string {
    mediaRefId(ref);
    return `${this.baseUrl}${BLOB_ROUTE_PREFIX}${ref}`;
  }

  private headers(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  private async call(ref: string, init: RequestInit, upload = false): Promise<Response> {
    const url = this.urlOf(ref);
    const requestAbort = requestSignal(init.signal ?? undefined, this.timeoutMs);
    try {
      return await fetch(url, {
        ...init,
        headers: { ...this.headers(), ...init.headers },
        signal: requestAbort.signal,
      });
    } catch (cause) {
      if (init.signal?.aborted)
        throw new AbortedError('the request was aborted', { cause: init.signal.reason });
      throw markRetryable(
        new StorageError(`could not reach the media server at ${this.baseUrl}`, {
          code: upload ? 'ERR_UPLOAD_FAILED' : 'ERR_DOWNLOAD_FAILED',
          cause,
        }),
      );
    } finally {
      requestAbort.release();
    }
  }

  /**
   * Stores a new blob of exactly `size` bytes under a fresh ref (`media/<cuid2>`) and returns it once
   * stored: one `PUT` of a fresh `media/<id>` (the media server takes client-chosen refs). `body(ref)` is called before the first byte is read.
   *
   * @throws the errors of {@link HttpBlobStore.put}.
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
   * Uploads exactly `size` bytes with one `PUT` and an exact `Content-Length`.
   *
   * @throws {StorageError} `ERR_UPLOAD_FAILED` (length mismatch, refused, network), `ERR_INVALID_REF`.
   * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the server's upload limit is smaller.
   * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts.
   */
  async put(
    ref: string,
    body: ReadableStream<Uint8Array>,
    size: number,
    options: WriteOptions = {},
  ): Promise<void> {
    const url = new URL(this.urlOf(ref));
    assertNonNegativeInteger(size, 'size');
    throwIfAborted(options.signal);
    // The server may have stored the whole body before the connection was cut: remove it.
    const answer = await this.sendBody('PUT', url, ref, body, size, options, () => this.delete(ref));
    if (answer.status !== 201 && answer.status !== 200) {
      throw errorForStatus(answer.status, answer.detail, ref, true);
    }
  }

  /**
   * {@link HttpBlobStore.create} that survives a dropped connection or a killed process, through the
   * server's upload route (`/v1/uploads/media/<id>`, media-server-upload-routes.ts): it asks how many
   * bytes the server holds and appends the rest from there, in one `PATCH` per connection; the blob is
   * stored only once complete. The state (`{ ref, size }`) goes to `options.onState` first; given back
   * as `resumeFrom`, the bytes the server holds are checked (their SHA-256) against the ones `body` makes
   * again, and a difference starts the send over (`restartUploadError`). Dropped connections are retried
   * within the run, up to `retries` in a row without progress.
   *
   * @throws {StorageError} `restartUploadError`; `ERR_UPLOAD_FAILED` (refused, retries spent);
   *   {LimitError} `ERR_LIMIT_EXCEEDED` over the server's limit; {AbortedError} `ERR_ABORTED`.
   */
  async createResumable(
    size: number,
    body: ResumableBody,
    options: ResumableWriteOptions,
  ): Promise<{ ref: string }> {
    assertNonNegativeInteger(size, 'size');
    throwIfAborted(options.signal);
    const state = (value: unknown) => {
      const parsed = value as { ref?: unknown; size?: unknown } | undefined;
      return typeof parsed?.ref === 'string' && isMediaRef(parsed.ref) && parsed.size === size
        ? { ref: parsed.ref, size }
        : undefined;
    };
    const dropped = state(options.abandon);
    if (dropped) await this.uploadRequest(dropped.ref, size, 'DELETE').catch(() => undefined);
    const resumed = state(options.resumeFrom);
    const ref = resumed?.ref ?? createMediaRef();
    await options.onState({ ref, size });
    // The bytes held are checked once when going on from another run (the file may have changed);
    // within a run they are the bytes this run sent.
    let check = resumed !== undefined;
    const budget = new RetryBudget({ ...(options.signal ? { signal: options.signal } : {}) });
    for (;;) {
      try {
        const held = await this.uploadStatus(ref, size);
        if (held.complete) return { ref };
        if (check && held.offset > 0 && (await madeSha256(body, ref, held.offset)) !== held.sha256) {
          await this.uploadRequest(ref, size, 'DELETE').catch(() => undefined);
          throw restartUploadError(
            'what the media server holds of the interrupted upload is not what the file makes now (the file changed)',
          );
        }
        check = false;
        const url = new URL(this.uploadUrlOf(ref, size));
        url.searchParams.set('offset', String(held.offset));
        const answer = await this.sendBody(
          'PATCH',
          url,
          ref,
          await body(ref, held.offset),
          size - held.offset,
          {
            ...options,
            onProgress: (done) => options.onProgress?.(held.offset + done, size),
          },
        );
        if (answer.status === 201) return { ref };
        if (answer.status === 409) {
          // The server holds another offset than the one asked (another request raced this one): ask again.
          throw markRetryable(
            new StorageError('the media server holds another part of the upload; asking again', {
              code: 'ERR_UPLOAD_FAILED',
            }),
          );
        }
        if (answer.status !== 200) throw errorForStatus(answer.status, answer.detail, ref, true);
        budget.progressed();
      } catch (error) {
        if (isRestartUpload(error) || !(await budget.failed(error))) throw error;
      }
    }
  }

  /** URL of the upload route of `ref` for a blob of `size` bytes. */
  private uploadUrlOf(ref: string, size: number): string {
    mediaRefId(ref);
    return `${this.baseUrl}${UPLOAD_ROUTE_PREFIX}${ref}?size=${size}`;
  }

  /** A `GET`/`DELETE` of the upload route of `ref`. */
  private async uploadRequest(ref: string, size: number, method: 'GET' | 'DELETE'): Promise<Response> {
    const url = this.uploadUrlOf(ref, size);
    const requestAbort = requestSignal(undefined, this.timeoutMs);
    try {
      return await fetch(url, { method, headers: this.headers(), signal: requestAbort.signal });
    } catch (cause) {
      throw markRetryable(
        new StorageError(`could not reach the media server at ${this.baseUrl}`, {
          code: 'ERR_UPLOAD_FAILED',
          cause,
        }),
      );
    } finally {
      requestAbort.release();
    }
  }

  /** How much the server holds of the upload of `ref`, and its SHA-256. */
  private async uploadStatus(
    ref: string,
    size: number,
  ): Promise<{ offset: number; sha256?: string; complete: boolean }> {
    const response = await this.uploadRequest(ref, size, 'GET');
    if (response.status !== 200) {
      throw errorForStatus(response.status, await readErrorBody(response), ref, true);
    }
    const answer = (await response.json().catch(() => undefined)) as
      | { offset?: unknown; sha256?: unknown; complete?: unknown }
      | undefined;
    const offset = answer?.offset;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0 || offset > size) {
      throw new StorageError(
        'the media server gave no usable offset for the upload; is it happy-media serve?',
        {
          code: 'ERR_UPLOAD_FAILED',
        },
      );
    }
    return {
      offset,
      complete: answer?.complete === true,
      ...(typeof answer?.sha256 === 'string' ? { sha256: answer.sha256 } : {}),
    };
  }

  /**
   * Sends `size` bytes of `body` to `url` with `method` and an exact `Content-Length` (and `Expect:
   * 100-continue`), and returns the server's status and error detail. A failure after the whole body
   * was sent runs `afterSent` (the server may have stored it).
   */
  private async sendBody(
    method: 'PUT' | 'PATCH',
    url: URL,
    ref: string,
    body: ReadableStream<Uint8Array>,
    size: number,
    options: WriteOptions,
    afterSent?: () => Promise<void>,
  ): Promise<{ status: number; detail: string }> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req: ClientRequest = send(url, {
      method,
      headers: {
        ...this.headers(),
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        // Lets the server refuse (401, 413…) before the body is sent: a refusal that arrives while the body
        // is streaming can be lost to a TCP reset, and would then read as a network failure.
        expect: '100-continue',
      },
      timeout: this.timeoutMs,
    });
    // The server may answer before the body is sent (401, 413): that answer is the real outcome.
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
      req.once('timeout', () =>
        req.destroy(uploadConnectionFailed(`the media server at ${this.baseUrl} did not answer in time`)),
      );
    });
    response.catch(() => {});
    const onAbort = () => req.destroy(new AbortedError('the upload was aborted; nothing was stored'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let early: IncomingMessage | undefined;
    response.then(
      (r) => {
        early = r;
      },
      () => {},
    );
    let bodySent = false;
    const failed = async (cause: unknown): Promise<never> => {
      req.destroy();
      options.signal?.removeEventListener('abort', onAbort);
      if (bodySent) await afterSent?.().catch(() => {});
      if (cause instanceof AbortedError) throw cause;
      if (options.signal?.aborted)
        throw new AbortedError('the upload was aborted; nothing was stored', { cause });
      const answer = early ?? (await Promise.race([response, delay(200)]).catch(() => undefined));
      if (answer && answer.statusCode !== undefined && answer.statusCode >= 400) {
        throw errorForStatus(answer.statusCode, await readErrorBody(answer), ref, true);
      }
      if (cause instanceof HappyMediaError) throw cause;
      throw markRetryable(
        new StorageError(`the upload to ${this.baseUrl} failed`, { code: 'ERR_UPLOAD_FAILED', cause }),
      );
    };
    let stoppedEarly = false;
    try {
      req.flushHeaders();
      await continueOrAnswer(req, response);
      for await (const chunk of readSizedBody(body, size, options)) {
        if (early) {
          stoppedEarly = true;
          break;
        }
        if (!req.write(chunk)) await drainOrFail(req, response);
      }
      if (!stoppedEarly) {
        bodySent = true;
        await endRequest(req);
      }
    } catch (cause) {
      await failed(cause);
    }
    let answer: IncomingMessage;
    try {
      answer = await response;
    } catch (cause) {
      return failed(cause);
    }
    options.signal?.removeEventListener('abort', onAbort);
    const status = answer.statusCode ?? 0;
    if (status >= 300) {
      req.destroy();
      return { status, detail: await readErrorBody(answer) };
    }
    answer.resume();
    if (stoppedEarly) {
      // A success before the whole body was sent cannot be right; treat it as a failed upload.
      throw lengthMismatch(size, 0, true);
    }
    return { status, detail: '' };
  }

  /**
   * Downloads the blob or one range of it.
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent; `ERR_DOWNLOAD_FAILED` otherwise.
   * @throws {InvalidArgumentError} for a range starting past the end.
   */
  async get(ref: string, range?: BlobRange, options: GetOptions = {}): Promise<ReadableStream<Uint8Array>> {
    this.urlOf(ref);
    checkRange(range);
    if (range && range.length === 0) {
      const { size } = await this.head(ref);
      if (range.offset > size) throw errorForStatus(416, '', ref, false);
      return emptyStream();
    }
    // The shared ranged GET checks every 206's Content-Range (a wrong range is a retryable download
    // error, not something for the decryptor to call tampering) and copes with a proxy that ignores Range.
    const { body, totalSize } = await fetchRange(this.urlOf(ref), {
      ...(range ? { range } : {}),
      headers: this.headers(),
      signal: options.signal,
      timeoutMs: this.timeoutMs,
      leg: 'download',
      what: ref,
      statusError: async (response) =>
        errorForStatus(response.status, await readErrorBody(response), ref, false),
    });
    if (totalSize !== undefined) options.onSize?.(totalSize);
    return body;
  }

  /**
   * Size of the stored blob, from a one-byte ranged `GET` (`Content-Range: bytes 0-0/<size>`) rather
   * than a `HEAD`: Node's `fetch` (undici) closes the connection after every `HEAD` (it guards against
   * servers that send a body anyway), so each one would cost a new TCP connection, a fixed cost of every
   * playback open. A `GET` keeps the connection for the next request.
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent; `ERR_DOWNLOAD_FAILED` otherwise.
   */
  async head(ref: string): Promise<{ size: number }> {
    const size = await fetchSize(this.urlOf(ref), {
      headers: this.headers(),
      timeoutMs: this.timeoutMs,
      leg: 'asking the size',
      what: ref,
      statusError: async (response) =>
        errorForStatus(response.status, await readErrorBody(response), ref, false),
    });
    return { size };
  }

  /** Deletes the blob; a missing ref is not an error. */
  async delete(ref: string): Promise<void> {
    const response = await this.call(ref, { method: 'DELETE' });
    await response.body?.cancel();
    if (response.status !== 204 && response.status !== 200 && response.status !== 404) {
      throw errorForStatus(response.status, '', ref, false);
    }
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/** A connection that failed during an upload: transient, so marked retryable (nothing was stored). */
function uploadConnectionFailed(what: string): StorageError {
  return markRetryable(new StorageError(`the upload failed: ${what}`, { code: 'ERR_UPLOAD_FAILED' }));
}

/** Ends the request body; rejects if the request fails or closes before the body is flushed. */
function endRequest(req: ClientRequest): Promise<void> {
  if (req.destroyed) return Promise.reject(uploadConnectionFailed('the connection closed during the upload'));
  const finished = new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    const onClose = () => reject(uploadConnectionFailed('the connection closed during the upload'));
    req.once('error', onError);
    req.once('close', onClose);
    req.once('finish', () => {
      req.off('error', onError);
      req.off('close', onClose);
      resolve();
    });
  });
  req.end();
  return finished;
}

/** How long to wait for `100 Continue` before sending the body anyway (a server that ignores `Expect`). */
const CONTINUE_TIMEOUT_MS = 1000;

/** Resolves on `100 Continue`, on an early final answer (or failure), or after {@link CONTINUE_TIMEOUT_MS}. */
function continueOrAnswer(req: ClientRequest, response: Promise<IncomingMessage>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.off('continue', done);
      resolve();
    };
    const timer = setTimeout(done, CONTINUE_TIMEOUT_MS);
    req.once('continue', done);
    response.then(done, done);
  });
}

/**
 * Waits until the request can take more body, or the server has answered (the caller then stops
 * writing and reads the answer instead of blocking on a server that no longer reads).
 */
function drainOrFail(req: ClientRequest, response: Promise<IncomingMessage>): Promise<void> {
  if (req.destroyed) return Promise.reject(uploadConnectionFailed('the connection closed during the upload'));
  return new Promise((resolve, reject) => {
    let settled = false;
    response.then(
      () => done(),
      () => {},
    );
    const done = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('drain', onDrain);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(uploadConnectionFailed('the connection closed during the upload'));
    req.once('drain', onDrain);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/** The SHA-256 (hex) of the first `length` bytes `body(ref, 0)` makes. */
async function madeSha256(body: ResumableBody, ref: string, length: number): Promise<string> {
  const hash = createHash('sha256');
  const reader = (await body(ref, 0)).getReader();
  let left = length;
  try {
    while (left > 0) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.length > left ? value.subarray(0, left) : value;
      hash.update(part);
      left -= part.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return hash.digest('hex');
}
