/**
 * Requests to Happy's server, over `fetch` only: the JSON API (sign-in, sessions, session messages) and
 * the legs of a session's attachments (attachment-store.ts) go through this one request path.
 *
 * One request per call, each named by its leg in every error, with a head-and-body timeout, and retried
 * under the project's one policy (transport/retry.ts): network failures, timeouts, `408`, `429` and
 * `5xx` are retried with capped exponential backoff and jitter; `401` ({@link UnauthorizedError}),
 * `403`, `404` and other answers never are. Retrying a write is safe only because every write this client
 * makes is idempotent on the server (a session per tag, a message per `localId`, an upload to a URL issued
 * for it).
 *
 * @internal Not exported from the package: {@link HappyClient} is the API.
 * @module
 */
import type * as z from 'zod';
import { describeValue } from '../bytes.js';
import {
  AbortedError,
  HappyMediaError,
  InvalidArgumentError,
  LimitError,
  StorageError,
  type StorageErrorCode,
  UnauthorizedError,
} from '../errors.js';
import { checkedTimeoutMs, requestSignal } from '../timeout.js';
import { isLoopbackHost, parseHttpBaseUrl } from '../transport/base-url.js';
import { readBodyText } from '../transport/bounded-body.js';
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
  | 'read-messages'
  | 'request-upload'
  | 'upload'
  | 'request-download'
  | 'download';

/** Options every Happy client shares: the server, the `fetch`, and the retry and timeout policy. */
export interface HappyApiOptions extends RetryPolicy {
  /** The server's base URL, e.g. `https://api.cluster-fluster.com` or `http://127.0.0.1:3005`. */
  url: string;
  /** The `fetch` to use (default: the global one). */
  fetch?: FetchFunction;
  /** Time allowed for each answer, head and body, in ms (default 60 000; 0: no limit). */
  timeoutMs?: number;
  /**
   * Talk `http:` to a host that is not this machine (default false: refused). Over plain HTTP the
   * sign-in proof and the bearer token cross the network readable by anyone on the path, and Happy's
   * sign-in proof can be replayed for a fresh token (docs/happy.md).
   */
  insecureHttp?: boolean;
}

/** What an error status means for one request, where it says more than the status alone. */
export interface StatusMeaning {
  /** What a `404` means, e.g. "session X was not found or belongs to another account". */
  notFound?: string;
  /** The code of a `404` (default `ERR_NOT_FOUND`). */
  notFoundCode?: StorageErrorCode;
  /** What a `403` means. */
  forbidden?: string;
  /** What to add to a refusal as too large (`413`, or Happy's `400` "Too big"). */
  tooLarge?: string;
  /**
   * A `429` is the server's rate limit, which the caller waits out itself (upload-rate.ts): thrown at
   * once ({@link isRateLimited}), not retried with the short backoff of other failures.
   */
  rateLimited?: boolean;
}

/** The errors {@link HappyApi.statusError} made for a `429` the caller waits out itself. */
const rateLimitedErrors = new WeakSet<object>();

/** True for the error of a `429` a request with `rateLimited` received. */
export function isRateLimited(error: unknown): boolean {
  return typeof error === 'object' && error !== null && rateLimitedErrors.has(error);
}

/** One request: its leg, method, path (below the base URL), JSON body, and what its statuses mean. */
export interface HappyApiRequest extends StatusMeaning {
  leg: HappyApiLeg;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The bearer token (absent only for sign-in). */
  token?: string;
  signal?: AbortSignal;
}

/**
 * The largest answer each leg parses, in bytes, suited to what it holds: a page of 200 sessions, a page
 * of up to 500 records (an agent's record can carry a long tool output), a few fields elsewhere. More is
 * `ERR_LIMIT_EXCEEDED`, not retried: a server that sends more than that is not answering the question.
 */
export const ANSWER_MAX_BYTES: Readonly<Record<HappyApiLeg, number>> = Object.freeze({
  'sign-in': 64 * 1024,
  'list-sessions': 16 * 1024 * 1024,
  'create-session': 1024 * 1024,
  'append-messages': 1024 * 1024,
  'read-messages': 64 * 1024 * 1024,
  'request-upload': 64 * 1024,
  upload: 64 * 1024,
  'request-download': 64 * 1024,
  download: 64 * 1024,
});

/** The code of every failure of `leg` that has no code of its own. */
export function legCode(leg: HappyApiLeg): StorageErrorCode {
  if (leg === 'append-messages' || leg === 'request-upload' || leg === 'upload') return 'ERR_UPLOAD_FAILED';
  if (leg === 'read-messages' || leg === 'request-download' || leg === 'download')
    return 'ERR_DOWNLOAD_FAILED';
  return 'ERR_STORAGE';
}

/** The abort error of `leg`, keeping the signal's reason. */
function aborted(leg: HappyApiLeg, signal: AbortSignal): AbortedError {
  return new AbortedError(`${leg} was aborted`, { cause: signal.reason });
}

/**
 * The one way to Happy's server, for the account's API (HappyClient) and the session's attachments
 * (HappyServerStore) alike: base URL, `fetch`, retries and timeouts, and the mapping of error statuses.
 */
export class HappyApi {
  /** The server's base URL, without a trailing slash. */
  readonly url: string;
  /** The server's origin (scheme, host, port). */
  readonly origin: string;
  /** The `fetch` requests go through. */
  readonly fetch: FetchFunction;
  /** Retry and timeout policy, as given. */
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
    if (base.protocol === 'http:' && !isLoopbackHost(base.hostname) && options.insecureHttp !== true) {
      throw new InvalidArgumentError(
        `expected an https:// URL of Happy's server for \`url\` but received http:// to ${base.host}, which is not this machine: the sign-in proof and the bearer token would cross the network in clear text, and whoever reads the proof can sign in as the account. Use https://, or set \`insecureHttp: true\` to send them anyway`,
      );
    }
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
   * @throws {StorageError} `ERR_NOT_FOUND` for `404` (unless the request says otherwise); the leg's code
   *   ({@link legCode}) for any other failure, after the retries.
   * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a refusal as too large.
   * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
   */
  request(request: HappyApiRequest): Promise<unknown> {
    const { leg, signal } = request;
    return this.retrying(leg, signal, () =>
      this.exchange(
        leg,
        `${this.url}${request.path}`,
        {
          method: request.method,
          headers: {
            ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        },
        signal,
        async (response) => {
          if (response.status !== 200) throw await this.statusError(leg, response, request);
          return this.readJson(leg, response);
        },
      ),
    );
  }

  /**
   * Runs `attempt` under the retry policy; once `signal` aborted, whatever it threw is `ERR_ABORTED`.
   *
   * @throws what the last attempt threw, or {@link AbortedError}.
   */
  retrying<T>(leg: HappyApiLeg, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
    return withRetries(attempt, { ...this.policy, ...(signal ? { signal } : {}) }).catch((error: unknown) => {
      if (signal?.aborted && !(error instanceof AbortedError)) throw aborted(leg, signal);
      throw error;
    });
  }

  /**
   * One `fetch` of `url`, and `read` of its answer, both within the timeout: a network failure, a body
   * cut off or a timeout is a retryable error of `leg` naming only the URL's origin. What `read` throws of
   * the library's own errors passes as it is.
   *
   * @throws {StorageError} the leg's code, marked retryable.
   * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
   */
  async exchange<T>(
    leg: HappyApiLeg,
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw aborted(leg, signal);
    const timeoutMs = this.policy.timeoutMs;
    const requestAbort = requestSignal(signal, timeoutMs);
    const failed = (what: string, cause: unknown) =>
      markRetryable(
        new StorageError(`${leg} failed: ${what} (${new URL(url).origin})`, { code: legCode(leg), cause }),
      );
    try {
      let response: Response;
      try {
        response = await this.fetch(url, { ...init, signal: requestAbort.signal });
      } catch (cause) {
        if (signal?.aborted) throw aborted(leg, signal);
        throw failed(
          requestAbort.timedOut ? `no answer within ${timeoutMs} ms` : 'could not reach the server',
          cause,
        );
      }
      try {
        return await read(response);
      } catch (cause) {
        if (signal?.aborted) throw aborted(leg, signal);
        // The deadline's own reason (a LimitError) is not what failed: the answer did not come in time.
        if (requestAbort.timedOut) throw failed(`the answer did not arrive within ${timeoutMs} ms`, cause);
        if (cause instanceof HappyMediaError) throw cause;
        throw failed('the answer was cut off', cause);
      }
    } finally {
      requestAbort.release();
    }
  }

  /**
   * The JSON of a `200` answer (read within {@link HappyApi.exchange}, so under its deadline and the
   * caller's signal), at most {@link ANSWER_MAX_BYTES} of the leg.
   *
   * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a larger answer (not retried).
   * @throws {StorageError} the leg's code for a body that is not JSON.
   */
  async readJson(leg: HappyApiLeg, response: Response): Promise<unknown> {
    const text = await readBodyText(
      response,
      ANSWER_MAX_BYTES[leg],
      `${leg} failed: the answer of Happy's server (${this.origin})`,
    );
    try {
      return JSON.parse(text);
    } catch {
      throw new StorageError(
        `${leg} failed: Happy's server answered 200 without JSON (${this.origin}); is it Happy's server?`,
        { code: legCode(leg) },
      );
    }
  }

  /**
   * The error for an error status of `leg`: `401` is the token (`ERR_UNAUTHORIZED`, whatever the leg),
   * `404` and `403` say what the request says they mean, a refusal as too large is `ERR_LIMIT_EXCEEDED`,
   * `408`/`429`/`5xx` are retryable errors of the leg's code, anything else is not retried. The server's
   * own words (its JSON error body) are added.
   */
  async statusError(
    leg: HappyApiLeg,
    response: Response,
    meaning: StatusMeaning = {},
  ): Promise<HappyMediaError> {
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
        `${leg} failed: ${meaning.notFound ?? `Happy's server has no such route; is ${this.origin} Happy's server?`} (404${suffix})`,
        { code: meaning.notFoundCode ?? 'ERR_NOT_FOUND' },
      );
    }
    if (status === 429 && meaning.rateLimited) {
      const error = new StorageError(`${leg} failed: Happy's server answered 429${suffix}`, {
        code: legCode(leg),
      });
      rateLimitedErrors.add(error);
      return error;
    }
    if (status === 403) {
      return new StorageError(
        `${leg} failed: the request was refused (403${suffix})${meaning.forbidden ? `; ${meaning.forbidden}` : ''}`,
        { code: legCode(leg) },
      );
    }
    // Happy's server refuses an attachment over its cap at request-upload with 400 "Too big".
    if (status === 413 || (status === 400 && /too big|too large/i.test(detail))) {
      return new LimitError(
        `${leg} failed: Happy's server refused the request as too large (${status}${suffix})${meaning.tooLarge ? `; ${meaning.tooLarge}` : ''}`,
      );
    }
    const error = new StorageError(`${leg} failed: Happy's server answered ${status}${suffix}`, {
      code: legCode(leg),
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
    code: legCode(leg),
  });
}
