/**
 * JSON requests to Happy's server API (sign-in, sessions, session messages), over `fetch` only.
 *
 * One request per call, each named by its leg in every error, with a head-and-body timeout, and retried
 * under the project's one policy (transport/retry.ts): network failures, timeouts, `408`, `429` and
 * `5xx` are retried with capped exponential backoff and jitter; `401` ({@link UnauthorizedError}),
 * `404` (`ERR_NOT_FOUND`) and other answers never are. Retrying a write is safe only because every write
 * this client makes is idempotent on the server (a session per tag, a message per `localId`).
 *
 * @internal Not exported from the package: {@link HappyClient} is the API.
 * @module
 */
import type * as z from 'zod';
import { describeValue } from '../bytes.js';
import {
  AbortedError,
  type HappyMediaError,
  InvalidArgumentError,
  LimitError,
  StorageError,
  type StorageErrorCode,
  UnauthorizedError,
} from '../errors.js';
import { checkedTimeoutMs, requestSignal } from '../timeout.js';
import { parseHttpBaseUrl } from '../transport/base-url.js';
import type { FetchFunction } from '../transport/fetch-range.js';
import {
  isRetryableStatus,
  markRetryable,
  type RetryPolicy,
  retryPolicy,
  withRetries,
} from '../transport/retry.js';
import { errorDetail } from './error-detail.js';

/** The requests a Happy client makes, named in every error. */
export type HappyApiLeg =
  | 'sign-in'
  | 'list-sessions'
  | 'create-session'
  | 'append-messages'
  | 'read-messages';

/** Options every Happy client shares: the server, the `fetch`, and the retry and timeout policy. */
export interface HappyApiOptions extends RetryPolicy {
  /** The server's base URL, e.g. `https://api.cluster-fluster.com` or `http://127.0.0.1:3005`. */
  url: string;
  /** The `fetch` to use (default: the global one). */
  fetch?: FetchFunction;
  /** Time allowed for each answer, head and body, in ms (default 60 000; 0: no limit). */
  timeoutMs?: number;
}

/** One request: its leg, method, path (below the base URL), JSON body, and what a 404 means. */
export interface HappyApiRequest {
  leg: HappyApiLeg;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The bearer token (absent only for sign-in). */
  token?: string;
  /** What a `404` means here, e.g. "session X was not found or belongs to another account". */
  notFound?: string;
  signal?: AbortSignal;
}

function codeOf(leg: HappyApiLeg): StorageErrorCode {
  if (leg === 'append-messages') return 'ERR_UPLOAD_FAILED';
  if (leg === 'read-messages') return 'ERR_DOWNLOAD_FAILED';
  return 'ERR_STORAGE';
}

/** The transport under {@link HappyClient}: base URL, `fetch`, retries and timeouts, error mapping. */
export class HappyApi {
  /** The server's base URL, without a trailing slash. */
  readonly url: string;
  /** The server's origin (scheme, host, port). */
  readonly origin: string;
  /** The `fetch` requests go through. */
  readonly fetch: FetchFunction;
  /** Retry and timeout policy, as given (attachment stores of the same server reuse it). */
  readonly policy: Required<RetryPolicy> & { timeoutMs: number };

  /**
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a URL that is not http(s) or carries
   *   credentials, a `fetch` that is not a function, or bad numbers.
   */
  constructor(options: HappyApiOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError(
        `expected \`{ url, ... }\` for \`options\` but received ${describeValue(options)}`,
      );
    }
    const base = parseHttpBaseUrl(options.url, 'url');
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new InvalidArgumentError(
        `expected a function for \`fetch\` but received ${describeValue(options.fetch)}`,
      );
    }
    this.url = base.href.replace(/\/+$/, '');
    this.origin = base.origin;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.policy = {
      ...retryPolicy(options),
      timeoutMs: checkedTimeoutMs(options.timeoutMs ?? 60_000, 'timeoutMs'),
    };
  }

  /**
   * Sends the request (retrying what heals) and returns the parsed JSON of a `200` answer.
   *
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for `401`.
   * @throws {StorageError} `ERR_NOT_FOUND` for `404`; the leg's code (`ERR_UPLOAD_FAILED` for appends,
   *   `ERR_DOWNLOAD_FAILED` for reads, `ERR_STORAGE` otherwise) for any other failure, after the retries.
   * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for `413`.
   * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
   */
  request(request: HappyApiRequest): Promise<unknown> {
    const { signal } = request;
    return withRetries(() => this.once(request), { ...this.policy, ...(signal ? { signal } : {}) }).catch(
      (error: unknown) => {
        if (signal?.aborted && !(error instanceof AbortedError)) {
          throw new AbortedError(`${request.leg} was aborted`, { cause: signal.reason });
        }
        throw error;
      },
    );
  }

  private async once(request: HappyApiRequest): Promise<unknown> {
    const { leg, signal } = request;
    if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
    const timeoutMs = this.policy.timeoutMs;
    const requestAbort = requestSignal(signal, timeoutMs);
    const failed = (what: string, cause?: unknown) =>
      markRetryable(
        new StorageError(`${leg} failed: ${what} (${this.origin})`, { code: codeOf(leg), cause }),
      );
    try {
      let response: Response;
      try {
        response = await this.fetch(`${this.url}${request.path}`, {
          method: request.method,
          headers: {
            ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          signal: requestAbort.signal,
        });
      } catch (cause) {
        if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
        throw failed(
          requestAbort.timedOut ? `no answer within ${timeoutMs} ms` : 'could not reach the server',
          cause,
        );
      }
      if (response.status !== 200) throw await this.statusError(request, response);
      let text: string;
      try {
        text = await response.text();
      } catch (cause) {
        if (signal?.aborted) throw new AbortedError(`${leg} was aborted`, { cause: signal.reason });
        throw failed(
          requestAbort.timedOut
            ? `the answer did not arrive within ${timeoutMs} ms`
            : 'the answer was cut off',
          cause,
        );
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new StorageError(
          `${leg} failed: the server answered 200 without JSON (${this.origin}); is it Happy's server?`,
          { code: codeOf(leg) },
        );
      }
    } finally {
      requestAbort.release();
    }
  }

  private async statusError(request: HappyApiRequest, response: Response): Promise<HappyMediaError> {
    const { leg } = request;
    const status = response.status;
    const detail = await errorDetail(response);
    const suffix = detail ? `: ${detail}` : '';
    if (status === 401) {
      return new UnauthorizedError(
        leg === 'sign-in'
          ? `sign-in failed: Happy's server did not accept the signed challenge (401${suffix})`
          : `${leg} failed: Happy's server refused the token (401${suffix}); sign in again with the account secret (a token from Happy CLI's access.key is good only on the server that issued it)`,
      );
    }
    if (status === 404) {
      return new StorageError(
        `${leg} failed: ${request.notFound ?? `Happy's server has no such route; is ${this.origin} Happy's server?`} (404${suffix})`,
        { code: 'ERR_NOT_FOUND' },
      );
    }
    if (status === 413) {
      return new LimitError(`${leg} failed: Happy's server refused the request as too large (413${suffix})`);
    }
    const error = new StorageError(`${leg} failed: Happy's server answered ${status}${suffix}`, {
      code: codeOf(leg),
    });
    return isRetryableStatus(status) ? markRetryable(error) : error;
  }
}

/**
 * Parses a `200` answer with `schema` (tolerant: fields a newer server adds are kept or ignored, as the
 * schema says), or throws naming the leg and what was missing.
 *
 * @throws {StorageError} the leg's code when the answer does not match.
 */
export function parseAnswer<S extends z.ZodType>(
  leg: HappyApiLeg,
  schema: S,
  value: unknown,
  what: string,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const where = result.error.issues[0]?.path.join('.') || 'the answer';
  throw new StorageError(`${leg} failed: Happy's server answered without ${what} (at \`${where}\`)`, {
    code: codeOf(leg),
  });
}
