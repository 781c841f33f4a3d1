/**
 * One ranged `GET` over `fetch`, with the answers of real servers checked instead of trusted.
 *
 * Every client that downloads ciphertext by URL (the media server client, Happy's attachment server,
 * a URL playback source) goes through {@link fetchRange}, so they share these rules:
 * - A `206` must carry a `Content-Range` naming exactly the bytes asked for (or the same start, cut at the
 *   end of the representation), and its body must deliver exactly that many bytes. A wrong range is a
 *   transport fault: `ERR_DOWNLOAD_FAILED`, retryable, never passed on to a decryptor where it would look
 *   like tampering (`ERR_DECRYPTION_FAILED`).
 * - A `200` to a range request means the server ignored `Range` (Happy's local mode, many proxies and
 *   CDNs): the body is the whole representation, so the bytes before the offset are skipped while
 *   reading and the rest after the range is cancelled. The caller sees the bytes it asked for.
 * - A `416` whose `Content-Range: bytes *\/N` says the range starts exactly at the end is an empty range
 *   (a blob read to its end); any other `416` is `ERR_INVALID_ARGUMENT`.
 * - Other statuses become typed errors (404 → `ERR_NOT_FOUND`); 408, 429 and 5xx and network failures
 *   are marked retryable ({@link isRetryableError}).
 * Every message names its leg (`download`, `request-download`, ...) and never the URL's query or path,
 * which may be a capability (a presigned signature, an unguessable file name).
 *
 * Only Web APIs are used (`fetch`, Web Streams): this module is part of the universal core.
 *
 * @module
 */
import { assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, type HappyMediaError, InvalidArgumentError, StorageError } from '../errors.js';
import { checkedTimeoutMs, requestSignal } from '../timeout.js';
import { urlScheme } from './base-url.js';
import { isRetryableStatus, markRetryable } from './retry.js';

/** The `fetch` function a client uses (the global one by default; inject another for tests or proxies). */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A byte range to fetch: `length` bytes from `offset`, or to the end when `length` is omitted. */
export interface FetchByteRange {
  /** First byte, 0-based. */
  offset: number;
  /** Number of bytes (cut at the end of the representation); omitted: to the end. */
  length?: number;
}

/** Options of {@link fetchRange}. */
export interface FetchRangeOptions {
  /** Bytes to fetch; omitted: the whole representation (a plain `GET`, expecting `200`). */
  range?: FetchByteRange;
  /** Extra request headers (e.g. `authorization`). `range` is set by this function. */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global `fetch`). */
  fetch?: FetchFunction;
  /** Cancels the request and the returned body (`ERR_ABORTED`). */
  signal?: AbortSignal;
  /** Time allowed until the response head arrives, in ms (default 60 000; 0: no limit). The body is not timed. */
  timeoutMs?: number;
  /** Names the leg in error messages (default `download`). */
  leg?: string;
  /** Names the resource in error messages, e.g. `media/abc`; never put a secret here (default: the URL's origin). */
  what?: string;
  /**
   * Maps an error status (anything but 200, 206 and 416) to the error to throw. Return `undefined` for
   * the default mapping. The response body is not read unless this function reads it.
   */
  statusError?: (response: Response) => Promise<HappyMediaError | undefined> | HappyMediaError | undefined;
}

/** What {@link fetchRange} hands back: exactly the bytes asked for, and what the server said about them. */
export interface RangedBody {
  /** The requested bytes, and nothing else; errors `ERR_DOWNLOAD_FAILED` if the server sends fewer or more. */
  body: ReadableStream<Uint8Array>;
  /** Offset of the first byte of `body` in the representation. */
  offset: number;
  /** Bytes `body` will deliver, when known (always known for a `206` and for a `200` with `Content-Length`). */
  length: number | undefined;
  /** Size of the whole representation, when the server said it (`Content-Range` total or a `200`'s `Content-Length`). */
  totalSize: number | undefined;
  /** True when the server answered a range request with `200` and the whole body (the prefix was skipped). */
  rangeIgnored: boolean;
  /** The HTTP status the server answered (200, 206, or 416 for an empty range at the end). */
  status: number;
  /** The response headers (e.g. for `ETag`, `Content-Type`). */
  headers: Headers;
}

/** Parsed `Content-Range: bytes a-b/total` (total `undefined` for `*`), or `bytes *\/total`. */
interface ContentRange {
  start: number | undefined;
  end: number | undefined;
  total: number | undefined;
}

const CONTENT_RANGE = /^bytes\s+(?:(\d{1,15})-(\d{1,15})|\*)\/(\d{1,15}|\*)$/i;

function parseContentRange(value: string | null): ContentRange | undefined {
  const match = CONTENT_RANGE.exec((value ?? '').trim());
  if (!match) return undefined;
  const [, start, end, total] = match;
  return {
    start: start === undefined ? undefined : Number(start),
    end: end === undefined ? undefined : Number(end),
    total: total === undefined || total === '*' ? undefined : Number(total),
  };
}

function parseLength(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value);
}

function downloadFailed(leg: string, message: string, cause?: unknown): StorageError {
  return markRetryable(
    new StorageError(`${leg} failed: ${message}`, {
      code: 'ERR_DOWNLOAD_FAILED',
      ...(cause === undefined ? {} : { cause }),
    }),
  );
}

/**
 * The default mapping of an error status for a download leg: 404 is `ERR_NOT_FOUND`; 401/403 say to
 * check the token; 408, 429 and 5xx are retryable `ERR_DOWNLOAD_FAILED`; the rest final
 * `ERR_DOWNLOAD_FAILED`.
 */
function downloadStatusError(status: number, leg: string, what: string): StorageError {
  if (status === 404) {
    return new StorageError(`${leg} failed: ${what} was not found (404)`, { code: 'ERR_NOT_FOUND' });
  }
  if (status === 401 || status === 403) {
    return new StorageError(`${leg} failed: the server refused the request (${status}); check the token`, {
      code: 'ERR_DOWNLOAD_FAILED',
    });
  }
  const error = new StorageError(`${leg} failed: the server answered ${status} for ${what}`, {
    code: 'ERR_DOWNLOAD_FAILED',
  });
  return isRetryableStatus(status) ? markRetryable(error) : error;
}

/**
 * Fetches `url`, whole or one byte range, and returns a body of exactly the bytes asked for.
 *
 * @throws {StorageError} `ERR_NOT_FOUND` (404); `ERR_DOWNLOAD_FAILED` for other error statuses, network
 *   failures, a head timeout, a `206` with a wrong or missing `Content-Range`, or (through the body) a
 *   body shorter or longer than announced. Retryable ones are marked ({@link isRetryableError}).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad range or a range starting past the end.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts (also through the body).
 * @example
 * ```ts
 * const { body } = await fetchRange(downloadUrl, { range: { offset: 56, length: 16400 }, leg: 'download' });
 * // A 200 from a server that ignores Range and a 206 give the same 16400 bytes.
 * ```
 */
export async function fetchRange(url: string | URL, options: FetchRangeOptions = {}): Promise<RangedBody> {
  const leg = options.leg ?? 'download';
  const { range, signal } = options;
  if (range !== undefined) {
    assertNonNegativeInteger(range?.offset, 'range.offset');
    if (range.length !== undefined) assertNonNegativeInteger(range.length, 'range.length');
  }
  const { target, origin } = httpTarget(url, leg);
  const what = options.what ?? origin;
  if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
  if (range?.length === 0) {
    // Nothing to ask for; an empty body without a request (a server cannot express an empty range).
    return emptyRange(range.offset, undefined, 206, new Headers());
  }

  const headers: Record<string, string> = { ...options.headers };
  if (range) {
    const last = range.length === undefined ? '' : String(range.offset + range.length - 1);
    headers.range = `bytes=${range.offset}-${last}`;
  }
  // The caller's abort signal stays linked to the request until its body ends (`release`): a listener
  // left on it per request piled up on a signal shared by many requests (a --serve response reads a
  // long range as many windows), and Node warned of a leak after the tenth.
  const { response, release } = await send(target, headers, options, leg, what);
  const answer: Answer = { response, range, leg, what, signal, release };
  try {
    if (response.status === 416 && range) return await rangeNotSatisfiable(answer, range);
    if (response.status !== 200 && response.status !== 206) {
      const mapped = await options.statusError?.(response);
      await response.body?.cancel().catch(() => {});
      throw mapped ?? downloadStatusError(response.status, leg, what);
    }
    if (!response.body) {
      throw downloadFailed(leg, `the server answered ${response.status} without a body for ${what}`);
    }
    return response.status === 206
      ? await partialContent(answer, response.body)
      : await wholeContent(answer, response.body);
  } catch (error) {
    release();
    throw error;
  }
}

/** The URL to request and the origin error messages name, for an absolute http(s) URL only. */
function httpTarget(url: string | URL, leg: string): { target: URL; origin: string } {
  let target: URL;
  try {
    target = new URL(url);
  } catch (cause) {
    throw new InvalidArgumentError(
      `expected an absolute URL for \`url\` (${leg}) but it could not be parsed`,
      {
        cause,
      },
    );
  }
  // Read from the text, not from URL getters React Native's own URL lacks.
  const parts = urlScheme(String(url));
  if (parts === undefined || (parts.scheme !== 'http' && parts.scheme !== 'https')) {
    // file:, javascript:, data:… never heal: refused at once rather than retried as a network failure.
    throw new InvalidArgumentError(
      `expected an http: or https: URL for \`url\` (${leg}) but received a ${parts?.scheme ?? 'schemeless'}: URL`,
    );
  }
  return { target, origin: parts.origin };
}

/** A server's answer, with what {@link fetchRange} asked for and how it names it. */
interface Answer {
  readonly response: Response;
  readonly range: FetchByteRange | undefined;
  readonly leg: string;
  readonly what: string;
  readonly signal: AbortSignal | undefined;
  /** Lets go of the caller's signal (once the body ends). */
  readonly release: () => void;
}

/** An empty body at `offset`; `release` (the request's link to the caller's signal) is let go at once. */
function emptyRange(
  offset: number,
  totalSize: number | undefined,
  status: number,
  headers: Headers,
  release?: () => void,
): RangedBody {
  release?.();
  return {
    body: new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
    offset,
    length: 0,
    totalSize,
    rangeIgnored: false,
    status,
    headers,
  };
}

/** A `416`: an empty range when it says the range starts exactly at the end, else a bad argument. */
async function rangeNotSatisfiable(answer: Answer, range: FetchByteRange): Promise<RangedBody> {
  const { response, leg, what } = answer;
  const contentRange = parseContentRange(response.headers.get('content-range'));
  await response.body?.cancel().catch(() => {});
  if (contentRange?.total !== undefined && contentRange.total === range.offset) {
    return emptyRange(range.offset, contentRange.total, 416, response.headers, answer.release);
  }
  throw new InvalidArgumentError(
    `${leg}: the server could not satisfy the byte range starting at ${range.offset} of ${what}${
      contentRange?.total === undefined ? '' : ` (it holds ${contentRange.total} bytes)`
    }`,
  );
}

/**
 * A `206`: its `Content-Range` must name exactly the bytes asked for (or the same start, cut at the end of
 * the representation), and its body must deliver exactly that many.
 */
async function partialContent(answer: Answer, body: ReadableStream<Uint8Array>): Promise<RangedBody> {
  const { response, range, leg, what } = answer;
  if (!range) {
    await body.cancel().catch(() => {});
    throw downloadFailed(leg, `the server answered 206 (partial content) to a request for all of ${what}`);
  }
  const contentRange = parseContentRange(response.headers.get('content-range'));
  const wantedEnd = range.length === undefined ? undefined : range.offset + range.length - 1;
  if (
    contentRange?.start === undefined ||
    contentRange.end === undefined ||
    !answersRange(
      { start: contentRange.start, end: contentRange.end, total: contentRange.total },
      range.offset,
      wantedEnd,
    )
  ) {
    await body.cancel().catch(() => {});
    const named = response.headers.get('content-range');
    throw downloadFailed(
      leg,
      `the server answered a request for bytes ${range.offset}-${wantedEnd ?? ''} of ${what} with ${
        named === null ? 'no Content-Range' : `Content-Range "${named.slice(0, 80)}"`
      }`,
    );
  }
  const length = contentRange.end - contentRange.start + 1;
  return {
    body: exactBody(body, { skip: 0, length, exact: true, overflowIsError: true }, answer),
    offset: range.offset,
    length,
    totalSize: contentRange.total,
    rangeIgnored: false,
    status: 206,
    headers: response.headers,
  };
}

/**
 * True when `bytes start-end/total` answers a request from `offset` to `wantedEnd` (undefined: to the
 * end): the same start, and exactly the end asked for or an earlier end that is the end of the
 * representation.
 */
function answersRange(
  { start, end, total }: { start: number; end: number; total: number | undefined },
  offset: number,
  wantedEnd: number | undefined,
): boolean {
  if (start !== offset || end < start || (total !== undefined && end >= total)) return false;
  if (wantedEnd === undefined) return total === undefined || end === total - 1;
  return end === wantedEnd || (end < wantedEnd && total !== undefined && end === total - 1);
}

/**
 * A `200`: the whole representation, asked for or not (a server that ignored `Range`): the bytes before
 * the offset are skipped while reading and the rest after the range is cancelled.
 */
async function wholeContent(answer: Answer, body: ReadableStream<Uint8Array>): Promise<RangedBody> {
  const { response, range, leg, what } = answer;
  const total = parseLength(response.headers.get('content-length'));
  const offset = range?.offset ?? 0;
  if (total !== undefined && offset > total) {
    await body.cancel().catch(() => {});
    throw new InvalidArgumentError(
      `${leg}: the byte range starts at ${offset}, past the end of ${what} (${total} bytes)`,
    );
  }
  const available = total === undefined ? undefined : total - offset;
  const length =
    range?.length === undefined
      ? available
      : available === undefined
        ? undefined
        : Math.min(range.length, available);
  return {
    body: exactBody(
      body,
      { skip: offset, length: length ?? range?.length, exact: length !== undefined, overflowIsError: false },
      answer,
    ),
    offset,
    length,
    totalSize: total,
    rangeIgnored: range !== undefined,
    status: 200,
    headers: response.headers,
  };
}

async function send(
  target: URL,
  headers: Record<string, string>,
  options: FetchRangeOptions,
  leg: string,
  what: string,
): Promise<{ response: Response; release: () => void }> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = checkedTimeoutMs(options.timeoutMs ?? 60_000, 'timeoutMs');
  const { signal } = options;
  // The request's signal stays linked to the caller's through the body, so an abort after the head also
  // ends the body; `release` lets go of it when the body ends.
  const requestAbort = requestSignal(signal, timeoutMs);
  const release = requestAbort.release;
  try {
    const response = await doFetch(target, {
      method: 'GET',
      headers,
      signal: requestAbort.signal,
      redirect: 'follow',
    });
    return { response, release };
  } catch (cause) {
    release();
    if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
    if (requestAbort.timedOut)
      throw downloadFailed(leg, `${what} sent no answer within ${timeoutMs} ms`, cause);
    throw downloadFailed(leg, `could not reach ${what}`, cause);
  } finally {
    requestAbort.stopTimer();
  }
}

/** How {@link exactBody} treats the bytes of its source. */
interface BodyShape {
  /** Bytes of the source to drop first (a server that ignored Range sends the prefix too). */
  skip: number;
  /** Bytes to pass on; undefined: everything after `skip`. */
  length: number | undefined;
  /** Fewer bytes than `length` is an error (the server announced them). */
  exact: boolean;
  /** More bytes than `length` is an error (a 206 must send exactly its range) rather than cut off. */
  overflowIsError: boolean;
}

/**
 * A body that skips `shape.skip` bytes of `source`, then yields `shape.length` bytes (or everything
 * left) and cancels the rest. Chunks are passed on as views, without copying.
 */
function exactBody(
  source: ReadableStream<Uint8Array>,
  shape: BodyShape,
  answer: Answer,
): ReadableStream<Uint8Array> {
  const { leg, what, signal, release } = answer;
  const reader = source.getReader();
  let toSkip = shape.skip;
  let left = shape.length;
  const readSource = async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
    try {
      return await reader.read();
    } catch (cause) {
      if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
      throw downloadFailed(leg, `the connection to ${what} failed mid-body`, cause);
    }
  };
  const tooLong = () => downloadFailed(leg, `${what} sent more than the ${shape.length} bytes it announced`);
  // The body's end, however it ends, lets go of the caller's signal.
  const pull = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    for (;;) {
      if (left === 0) {
        if (shape.overflowIsError) {
          const after = await readSource();
          if (!after.done && after.value.length > 0) {
            reader.cancel().catch(() => {});
            throw tooLong();
          }
          if (!after.done) continue;
        } else {
          reader.cancel().catch(() => {});
        }
        release();
        controller.close();
        return;
      }
      const next = await readSource();
      if (next.done) {
        if (shape.exact && left !== undefined && left > 0) {
          throw downloadFailed(leg, `${what} ended ${left} bytes before the end it announced`);
        }
        if (toSkip > 0) {
          throw new InvalidArgumentError(`${leg}: the byte range starts past the end of ${what}`);
        }
        release();
        controller.close();
        return;
      }
      let chunk = next.value;
      if (toSkip > 0) {
        if (chunk.length <= toSkip) {
          toSkip -= chunk.length;
          continue;
        }
        chunk = chunk.subarray(toSkip);
        toSkip = 0;
      }
      if (chunk.length === 0) continue;
      if (left !== undefined && chunk.length > left) {
        if (shape.overflowIsError) {
          reader.cancel().catch(() => {});
          throw tooLong();
        }
        chunk = chunk.subarray(0, left);
      }
      if (left !== undefined) left -= chunk.length;
      controller.enqueue(chunk);
      return;
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await pull(controller);
      } catch (error) {
        release();
        throw error;
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}
