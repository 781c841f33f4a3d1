/**
 * Happy's own server (happy-server's attachment routes) as a {@link BlobStore}, over `fetch` only, so it
 * runs wherever the universal entry runs (Node, browsers, React Native).
 *
 * The four legs go through Happy's one request path (happy-api.ts: its timeout, retry policy and mapping
 * of error statuses), each retried on 408/429/5xx and network failures with bounded backoff, never on
 * 401 (`ERR_UNAUTHORIZED`: the token), 403 or 404, and each named in every error:
 * ```
 * request-upload    POST /v1/sessions/:sid/attachments/request-upload {filename, size} → {ref, uploadUrl, method, formFields?}
 * upload            PUT uploadUrl (local mode, bearer) | POST multipart formFields…, file (S3 mode, no bearer)
 * request-download  POST /v1/sessions/:sid/attachments/request-download {ref} → {downloadUrl}
 * download          GET downloadUrl (bearer only on the server's own origin), through fetchRange
 * ```
 * Refs: the server issues `sessions/<sid>/attachments/<uuid>.enc`; v2 messages carry `media/<uuid>`
 * (the id alphabet allows it). The store maps both ways with its session id ({@link
 * HappyServerStore.serverRef}, {@link HappyServerStore.mediaRef}); a ref of another session or of
 * another shape is `ERR_INVALID_REF` before any request.
 *
 * Capabilities (docs/storage.md): `create`, `get`, `head` and the ref mapping (`serverRef`, `mediaRef`);
 * no `put` (the server issues refs) and no `delete` (there is no route to delete one attachment: they go
 * with their session). Blobs are at most Happy's attachment cap (attachment-limit.ts) and an upload is held
 * in memory (the server buffers it whole too); local mode ignores `Range` (a `200` with the whole
 * body), which {@link fetchRange} turns into the asked bytes.
 *
 * @module
 */
import { assertNonNegativeInteger, describeValue } from '../bytes.js';
import { type HappyMediaError, InvalidArgumentError, StorageError } from '../errors.js';
import {
  assertBlobBody,
  assertWithinStoreLimit,
  type BlobBody,
  type BlobRange,
  type BlobStore,
  checkRange,
  emptyStream,
  type GetOptions,
  mediaRefId,
  type WriteOptions,
} from '../storage/blob-store.js';
import { readSizedBody, throwIfAborted } from '../storage/sized-body.js';
import { checkBearerToken } from '../transport/bearer-token.js';
import { fetchRange } from '../transport/fetch-range.js';
import { fetchSize } from '../transport/fetch-size.js';
import { isRetryableStatus, type RetryPolicy } from '../transport/retry.js';
import { HAPPY_MAX_ATTACHMENT_BYTES } from './attachment-limit.js';
import { HappyApi, type HappyApiOptions, isRateLimited, legCode, type StatusMeaning } from './happy-api.js';
import { type UploadRate, type UploadRateWindow, uploadRateWindow } from './upload-rate.js';

/** Options of {@link HappyServerStore}. */
export interface HappyServerStoreOptions extends RetryPolicy, HappyApiOptions {
  /** The server's base URL, e.g. `https://api.cluster-fluster.com` or `http://127.0.0.1:3005`. */
  url: string;
  /** The account's bearer token (what `POST /v1/auth` returned; Happy's CLI keeps it in its credentials). */
  token: string;
  /** The session the attachments belong to (only its owner can upload or read them). */
  sessionId: string;
  /**
   * How request-uploads are paced (default Happy's: 60 a minute per account, shared by every store of
   * the account in this process; `429`s waited out with growing pauses). Tests shorten it.
   */
  uploadRate?: UploadRate;
}

type Leg = 'request-upload' | 'upload' | 'request-download' | 'download';

/** The API a store made by {@link attachmentStoreOn} shares with its client, by the options it was given. */
const sharedApis = new WeakMap<HappyServerStoreOptions, HappyApi>();

/**
 * The attachments of session `sessionId` over `api`, the request path, `fetch` and retry policy of the
 * client that signed in (HappyClient.attachmentStore).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` as {@link HappyServerStore}'s constructor.
 */
export function attachmentStoreOn(api: HappyApi, token: string, sessionId: string): HappyServerStore {
  const options: HappyServerStoreOptions = { url: api.url, token, sessionId };
  sharedApis.set(options, api);
  return new HappyServerStore(options);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;
/**
 * The host names Happy's app rewrites to the server's origin (`rewriteLoopbackHost`): exactly these, not
 * every loopback address, so a download host on another loopback address (a local S3) keeps its URL.
 */
const HAPPY_REWRITTEN_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** How long a download URL is reused (S3 presigned URLs live 15 minutes; local ones forever). */
const DOWNLOAD_URL_TTL_MS = 5 * 60 * 1000;

function invalidRef(message: string): StorageError {
  return new StorageError(message, { code: 'ERR_INVALID_REF' });
}

/**
 * A {@link BlobStore} on Happy's attachment routes, for one session of one account.
 *
 * @example
 * ```ts
 * const store = new HappyServerStore({ url: 'http://127.0.0.1:3005', token, sessionId });
 * const { message } = await sendMedia('photo.jpg', { store, blobKey }); // message.ref: media/<uuid>
 * store.serverRef(message.ref); // 'sessions/<sessionId>/attachments/<uuid>.enc'
 * ```
 */
export class HappyServerStore implements BlobStore {
  /** The server's base URL, without a trailing slash. */
  readonly url: string;
  /** The session whose attachments this store reads and writes. */
  readonly sessionId: string;
  /** Happy's per-attachment limit ({@link HAPPY_MAX_ATTACHMENT_BYTES}). */
  readonly maxBlobBytes = HAPPY_MAX_ATTACHMENT_BYTES;
  /** The session's attachments on this server (`<url>/v1/sessions/<sessionId>/attachments`). */
  readonly location: string;
  readonly #api: HappyApi;
  readonly #token: string;
  readonly #downloadUrls = new Map<string, { url: string; until: number }>();
  readonly #uploadRate: UploadRateWindow;

  /**
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a URL that is not http(s) or carries
   *   credentials, an empty token, a malformed session id, or bad numbers.
   */
  constructor(options: HappyServerStoreOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError(
        `expected \`{ url, token, sessionId }\` for \`options\` but received ${describeValue(options)}`,
      );
    }
    const api = sharedApis.get(options) ?? new HappyApi(options);
    if (typeof options.token !== 'string' || options.token.trim() === '') {
      throw new InvalidArgumentError(
        "expected the account's bearer token for `token` but received none (Happy's server refuses every attachment route without it)",
      );
    }
    if (typeof options.sessionId !== 'string' || !SESSION_ID.test(options.sessionId)) {
      throw new InvalidArgumentError(
        `expected a session id (1-128 of A-Z a-z 0-9 _ -) for \`sessionId\` but received ${describeValue(options.sessionId)}`,
      );
    }
    this.#api = api;
    this.url = api.url;
    this.#token = checkBearerToken(options.token.trim(), 'token');
    this.sessionId = options.sessionId;
    this.location = `${this.url}/v1/sessions/${this.sessionId}/attachments`;
    this.#uploadRate = uploadRateWindow(api.origin, this.#token, options.uploadRate);
  }

  /**
   * The server's name for `ref`: `media/<uuid>` → `sessions/<sessionId>/attachments/<uuid>.enc`.
   *
   * @throws {StorageError} `ERR_INVALID_REF` for anything but `media/<uuid v4 in lower case>`.
   */
  serverRef(ref: string): string {
    const id = mediaRefId(ref);
    if (!UUID.test(id)) {
      throw invalidRef(
        `invalid ref for Happy's server: expected media/<uuid> (the refs its server issues) but the id is not a lower-case UUID`,
      );
    }
    return `sessions/${this.sessionId}/attachments/${id}.enc`;
  }

  /**
   * The v2 message's name for a server ref: `sessions/<sessionId>/attachments/<uuid>.enc` → `media/<uuid>`.
   *
   * @throws {StorageError} `ERR_INVALID_REF` for a ref of another session or of another shape.
   */
  mediaRef(serverRef: string): string {
    if (typeof serverRef !== 'string') {
      throw invalidRef(`expected a server ref string but received ${describeValue(serverRef)}`);
    }
    const match = /^sessions\/([^/]+)\/attachments\/([^/]+)\.enc$/.exec(serverRef);
    if (!match) {
      throw invalidRef('invalid server ref: expected sessions/<session id>/attachments/<uuid>.enc');
    }
    if (match[1] !== this.sessionId) {
      throw invalidRef("the ref belongs to another session than this store's; open that session's store");
    }
    if (!UUID.test(match[2] ?? '')) throw invalidRef('invalid server ref: the file name is not <uuid>.enc');
    return `media/${match[2]}`;
  }

  /** What the statuses of `leg` mean for this session's attachments. */
  private meaning(leg: Leg): StatusMeaning {
    return {
      notFound:
        leg === 'download'
          ? 'the attachment is not on the server'
          : `session ${this.sessionId} was not found or belongs to another account`,
      notFoundCode: leg === 'download' || leg === 'request-download' ? 'ERR_NOT_FOUND' : legCode(leg),
      forbidden:
        "check that the token belongs to the session's account (a presigned URL may also have expired)",
      tooLarge: `its limit is ${HAPPY_MAX_ATTACHMENT_BYTES} bytes of ciphertext per attachment`,
      rateLimited: leg === 'request-upload',
    };
  }

  /** POSTs JSON to one of the session's attachment routes and returns the parsed answer. */
  private postJson(
    leg: 'request-upload' | 'request-download',
    body: object,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.#api.request({
      leg,
      method: 'POST',
      path: `/v1/sessions/${encodeURIComponent(this.sessionId)}/attachments/${leg}`,
      body,
      token: this.#token,
      ...this.meaning(leg),
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * A URL the server handed out, made usable: a loopback host is replaced by the server's own origin (as
   * Happy's app does: the server names itself by what it believes its host is), and only URLs on the
   * server's origin get the bearer token (presigned S3 URLs refuse extra headers, and the token must not
   * leak to another host).
   */
  private resolveUrl(leg: Leg, raw: unknown): { url: string; headers: Record<string, string> } {
    let url: URL;
    try {
      url = new URL(String(raw));
    } catch (cause) {
      throw new StorageError(`${leg} failed: Happy's server handed out an unusable URL`, {
        code: legCode(leg),
        cause,
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new StorageError(`${leg} failed: Happy's server handed out a ${url.protocol} URL`, {
        code: legCode(leg),
      });
    }
    const origin = this.#api.origin;
    if (HAPPY_REWRITTEN_HOSTS.has(url.hostname) && url.origin !== origin) {
      url = new URL(`${url.pathname}${url.search}`, origin);
    }
    const own = url.origin === origin;
    return { url: url.href, headers: own ? { authorization: `Bearer ${this.#token}` } : {} };
  }

  /**
   * Uploads exactly `size` bytes as a new attachment: `request-upload` issues the ref (`media/<uuid>`
   * here), `body(ref)` makes the bytes, which are read whole (and their length checked) before the
   * upload, so a short, long, failing or aborted body uploads nothing. Resolves with the ref once the
   * server confirmed the blob.
   *
   * @throws {LimitError} `ERR_LIMIT_EXCEEDED` before any request when `size` is over 10 MiB.
   * @throws {StorageError} `ERR_UPLOAD_FAILED` naming the leg (`request-upload`, `upload`): refused token,
   *   unknown or foreign session, rate limit or server errors after the retries, a body of the wrong length.
   * @throws {AbortedError} `ERR_ABORTED`.
   * @example
   * ```ts
   * const { ref } = await store.create(ciphertextSize(n), (ref) =>
   *   file.stream().pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) })));
   * ```
   */
  async create(size: number, body: BlobBody, options: WriteOptions = {}): Promise<{ ref: string }> {
    assertNonNegativeInteger(size, 'size');
    assertBlobBody(body);
    assertWithinStoreLimit(this, size, "Happy's server");
    const { signal, onProgress } = options;
    throwIfAborted(signal);

    // Within Happy's 60 new attachments a minute: waits (telling onWait) rather than fails.
    const issued = (await this.#uploadRate.run(
      () => this.postJson('request-upload', { filename: 'blob.enc', size }, signal),
      isRateLimited,
      signal,
      options.onWait,
    )) as {
      ref?: unknown;
      uploadUrl?: unknown;
      method?: unknown;
      formFields?: unknown;
    };
    let ref: string;
    try {
      ref = this.mediaRef(String(issued?.ref));
    } catch (cause) {
      throw new StorageError('request-upload failed: the server issued a ref this store cannot use', {
        code: 'ERR_UPLOAD_FAILED',
        cause,
      });
    }
    const target = this.resolveUrl('upload', issued.uploadUrl);

    // The whole blob in memory (at most 10 MiB): the server buffers it whole as well, and a buffer can
    // be sent with an exact Content-Length and sent again on a retry. Until it is sent, nothing exists
    // under the issued ref (the server keeps no record of request-upload).
    const bytes = new Uint8Array(size);
    let at = 0;
    for await (const chunk of readSizedBody(await body(ref), size, {
      ...(signal ? { signal } : {}),
      // The last step (the server's confirmation) reports the total; reading stops one short of it.
      onProgress: (done) => onProgress?.(Math.min(done, Math.max(0, size - 1)), size),
    })) {
      bytes.set(chunk, at);
      at += chunk.length;
    }

    const method = issued.method === 'POST' ? 'POST' : 'PUT';
    await this.#api.retrying('upload', signal, () => {
      let init: RequestInit;
      if (method === 'PUT') {
        init = {
          method: 'PUT',
          headers: { ...target.headers, 'content-type': 'application/octet-stream' },
          body: bytes,
        };
      } else {
        // S3 mode: the policy's fields first, then the file part (as Happy's app and CLI send it).
        const form = new FormData();
        const fields = issued.formFields;
        if (fields && typeof fields === 'object') {
          for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
            form.append(name, String(value));
          }
        }
        form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'blob');
        init = { method: 'POST', headers: target.headers, body: form };
      }
      return this.#api.exchange('upload', target.url, init, signal, async (response) => {
        if (response.status < 200 || response.status > 299) {
          throw await this.#api.statusError('upload', response, this.meaning('upload'));
        }
        await response.body?.cancel().catch(() => {});
      });
    });
    onProgress?.(size, size);
    return { ref };
  }

  /**
   * The download URL of `ref`, asked once and reused for a few minutes (`reused` says so: such a URL may
   * have expired meanwhile).
   */
  private async downloadUrl(
    ref: string,
    signal?: AbortSignal,
  ): Promise<{ url: string; headers: Record<string, string>; reused: boolean }> {
    const serverRef = this.serverRef(ref);
    const cached = this.#downloadUrls.get(ref);
    if (cached && cached.until > Date.now()) {
      return { ...this.resolveUrl('download', cached.url), reused: true };
    }
    const answer = (await this.postJson('request-download', { ref: serverRef }, signal)) as {
      downloadUrl?: unknown;
    };
    const resolved = this.resolveUrl('request-download', answer?.downloadUrl);
    this.#downloadUrls.set(ref, { url: String(answer.downloadUrl), until: Date.now() + DOWNLOAD_URL_TTL_MS });
    if (this.#downloadUrls.size > 256)
      this.#downloadUrls.delete(this.#downloadUrls.keys().next().value as string);
    return { ...resolved, reused: false };
  }

  /**
   * Runs `read` on the download URL of `ref`. A reused URL that the host refuses (403: a presigned URL
   * past its expiry, or one signed for another method) is forgotten and `read` runs once more on a fresh
   * one from `request-download`, so a player that comes back to a blob after the URL's lifetime still
   * reads it. Any other failure forgets the URL too (the next read asks afresh) and is thrown.
   */
  private async withDownloadUrl<T>(
    ref: string,
    signal: AbortSignal | undefined,
    read: (
      target: { url: string; headers: Record<string, string> },
      statusError: (response: Response) => Promise<HappyMediaError>,
    ) => Promise<T>,
  ): Promise<T> {
    for (;;) {
      const target = await this.downloadUrl(ref, signal);
      let refused = false;
      const statusError = (response: Response) => {
        refused = response.status === 403;
        return this.#api.statusError('download', response, this.meaning('download'));
      };
      try {
        return await read(target, statusError);
      } catch (error) {
        this.#downloadUrls.delete(ref);
        if (!(refused && target.reused) || signal?.aborted) throw error;
      }
    }
  }

  /**
   * Streams the attachment, whole or one byte range (the server's local mode ignores `Range`: the bytes
   * before the offset are skipped while reading).
   *
   * @throws {StorageError} `ERR_INVALID_REF` before any request; `ERR_NOT_FOUND` for a missing attachment or
   *   a session that is not this account's; `ERR_DOWNLOAD_FAILED` naming the leg otherwise.
   * @throws {InvalidArgumentError} for a range starting past the end.
   */
  async get(ref: string, range?: BlobRange, options: GetOptions = {}): Promise<ReadableStream<Uint8Array>> {
    this.serverRef(ref);
    checkRange(range);
    const { signal } = options;
    if (range && range.length === 0) {
      const { size } = await this.head(ref);
      if (range.offset > size) {
        throw new InvalidArgumentError(
          `expected a range starting at most at the blob's end (${size}) for \`range.offset\` but received ${range.offset}`,
        );
      }
      return emptyStream();
    }
    return this.withDownloadUrl(ref, signal, async (target, statusError) => {
      const got = await this.#api.retrying('download', signal, () =>
        fetchRange(target.url, {
          ...(range ? { range } : {}),
          headers: target.headers,
          fetch: this.#api.fetch,
          ...(signal ? { signal } : {}),
          timeoutMs: this.#api.policy.timeoutMs,
          leg: 'download',
          what: ref,
          statusError,
        }),
      );
      // The answer told the stored size (a 206's Content-Range total): playback needs no `head` then.
      if (got.totalSize !== undefined) options.onSize?.(got.totalSize);
      return got.body;
    });
  }

  /**
   * Size of the attachment: `HEAD` on its download URL, or (where `HEAD` is refused, e.g. a presigned GET
   * URL, or tells no length) a one-byte ranged `GET` whose `Content-Range` or `Content-Length` gives the
   * size; from a server that tells neither, the whole attachment counted (transport/fetch-size.ts).
   *
   * @throws {StorageError} `ERR_INVALID_REF`, `ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED` as {@link get}.
   */
  async head(ref: string): Promise<{ size: number }> {
    const size = await this.withDownloadUrl(ref, undefined, (target, statusError) =>
      this.#api.retrying('download', undefined, async () => {
        const length = await this.#api.exchange(
          'download',
          target.url,
          { method: 'HEAD', headers: target.headers },
          undefined,
          async (response) => {
            if (response.status === 404 || response.status === 401 || isRetryableStatus(response.status)) {
              throw await statusError(response);
            }
            await response.body?.cancel().catch(() => {});
            // A length only where the header says one: no header is no size (not 0).
            const header = response.headers.get('content-length')?.trim() ?? '';
            const told = /^\d+$/.test(header) ? Number(header) : Number.NaN;
            return response.status === 200 && Number.isSafeInteger(told) ? told : undefined;
          },
        );
        if (length !== undefined) return length;
        // HEAD refused (a presigned GET URL refuses it with 403) or without a length: one ranged GET
        // tells the size; its 403 is the URL's own refusal. A server that ignores Range and tells no
        // length at all sends the whole attachment, counted (an attachment is at most Happy's cap).
        return fetchSize(target.url, {
          headers: target.headers,
          fetch: this.#api.fetch,
          timeoutMs: this.#api.policy.timeoutMs,
          leg: 'download',
          what: ref,
          statusError,
          countUpTo: HAPPY_MAX_ATTACHMENT_BYTES,
        });
      }),
    );
    return { size };
  }
}
