/**
 * Seekable streaming in the browser: the page side. Registers the app's Service Worker (a script that
 * calls `installMediaServiceWorker(self)`), hands it a message's ref and key over a `MessageChannel`
 * with a second channel through which the worker reads the ciphertext from the page's source, and
 * returns the URL a `<video>` element plays from. The key travels only inside the browser; the source
 * (and its token) stays in the page.
 *
 * @module
 */
import { describeValue, randomBytes, toHex } from '../core/bytes.js';
import { DecryptionError, InvalidArgumentError, NotSupportedError, reviveError } from '../core/errors.js';
import { type MediaDownloadSource, sourceStore } from '../core/playback/download-media.js';
import { isMediaUrl } from '../core/playback/fetch-blob-source.js';
import {
  assertStoreAndKey,
  type MediaInput,
  requestForSource,
  toMediaRequest,
} from '../core/playback/media-request.js';
import type { FetchFunction } from '../core/transport/fetch-range.js';
import { STREAM_PATH_SEGMENT, type StreamingReply, type StreamingRequest } from './service-worker.js';
import { serveBlobSource } from './source-channel.js';

/** A blob opened for streaming. */
export interface StreamingMedia {
  /** Same-origin URL to give a `<video>`/`<audio>` element (valid while the worker runs). */
  url: string;
  /** Plaintext size in bytes (authenticated: the final chunk verified). */
  size: number;
  /** `undefined` while every chunk served so far verified, else the `ERR_*` code of the failure. */
  status(): Promise<string | undefined>;
  /** Ends the streaming: the worker forgets the blob and its key, the page stops serving its reads. */
  close(): Promise<void>;
}

function ask(
  worker: ServiceWorker,
  message: StreamingRequest,
  transfer: Transferable[] = [],
): Promise<StreamingReply> {
  const channel = new MessageChannel();
  const reply = new Promise<StreamingReply>((resolve) => {
    channel.port1.onmessage = (event) => {
      channel.port1.close();
      resolve(event.data as StreamingReply);
    };
  });
  worker.postMessage(message, [channel.port2, ...transfer]);
  return reply;
}

/**
 * Registers `scriptUrl` (default `sw.js`, next to the page) and resolves once it controls the page.
 *
 * @throws {NotSupportedError} `ERR_NOT_SUPPORTED` when the browser has no Service Workers (play with
 *   `downloadMedia` instead).
 */
export async function registerMediaServiceWorker(
  scriptUrl = 'sw.js',
): Promise<{ worker: ServiceWorker; scope: string }> {
  if (!('serviceWorker' in navigator)) {
    throw new NotSupportedError(
      'this browser has no Service Workers (or the page is not a secure context): play with downloadMedia instead',
    );
  }
  const registration = await navigator.serviceWorker.register(scriptUrl);
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
  return { worker: navigator.serviceWorker.controller as ServiceWorker, scope: registration.scope };
}

/** Options of {@link openStreamingMedia}: `downloadMedia`'s source and key. */
export interface StreamingMediaOptions {
  /**
   * Where the ciphertext is, as for `downloadMedia`: a URL (relative to the page), a function of the ref
   * (called for every request, so an expiring URL is renewed: Happy's `request-download`), or a store
   * (`head` + `get`, e.g. `client.attachmentStore(session)`: a `HappyServerStore`).
   */
  source: MediaDownloadSource;
  /** The 32-byte blob key. */
  blobKey: Uint8Array;
  /** `fetch` for a URL source (default: the page's, with `cache: 'no-store'`). */
  fetch?: FetchFunction;
  /** Request headers for a URL source, e.g. `{ authorization: 'Bearer …' }` (they stay in the page). */
  headers?: Record<string, string>;
}

/**
 * Opens a v2 media message's blob in the registered worker for seekable playback, from the same
 * `source` `downloadMedia` takes. The page keeps the source (and any token); the worker reads the
 * ciphertext ranges it needs through the page, decrypts them and answers the `<video>`. The blob is
 * bound to the message's ref, so a blob served under another ref fails as `ERR_DECRYPTION_FAILED`.
 *
 * @param message - a v2 `video` (or `photo`/`file`) message, or `{ ref, mimeType?, size? }`.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the commitment or final chunk does not verify
 *   (wrong key, tampering, a blob bound to another ref) or its size is not the message's.
 * @throws {StorageError} `ERR_INVALID_REF` for a malformed ref, before the worker is asked;
 *   `ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED` when the blob cannot be read.
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server refuses the token.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad source or key, or a v1 blob (one
 *   secretbox, read whole: play it with `downloadMedia`).
 * @throws {InternalError} `ERR_INTERNAL` when the worker failed in a way it did not expect (a bug).
 * @example
 * ```ts
 * const registration = await registerMediaServiceWorker('sw.js');
 * const media = await openStreamingMedia(registration, message, {
 *   source: client.attachmentStore(session), // or (ref) => requestDownloadUrl(ref), or a URL
 *   blobKey,
 * });
 * video.src = media.url;
 * ```
 */
export async function openStreamingMedia(
  registration: { worker: ServiceWorker; scope: string },
  message: MediaInput,
  options: StreamingMediaOptions,
): Promise<StreamingMedia> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `expected \`{ source, blobKey }\` for \`options\` but received ${describeValue(options)}`,
    );
  }
  const store = sourceStore(pageRelative(options.source), {
    fetch: options.fetch ?? ((input, init) => fetch(input, { ...init, cache: 'no-store' })),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
  assertStoreAndKey({ store, blobKey: options.blobKey }, 'source');
  const request = requestForSource(toMediaRequest(message), options.source, isMediaUrl(options.source));
  if (request.format === 'v1') {
    throw new InvalidArgumentError(
      'expected a v2 blob for `message` but received a v1 one: a v1 blob is one secretbox, read and verified whole, so it cannot be streamed in ranges; play it with downloadMedia',
    );
  }
  const id = toHex(randomBytes(16));
  const channel = new MessageChannel();
  const fixedUrl = isMediaUrl(options.source) && typeof options.source !== 'function';
  const stopServing = serveBlobSource(store, request.ref, channel.port1, fixedUrl);
  // The worker verified the commitment and the final chunk before it says yes.
  const opened = await ask(
    registration.worker,
    {
      type: 'open',
      id,
      ref: request.ref,
      key: options.blobKey.slice(),
      mime: request.mimeType ?? 'application/octet-stream',
      fixedUrl,
      ...(request.size === undefined ? {} : { size: request.size }),
      source: channel.port2,
    },
    [channel.port2],
  );
  if (!opened.ok) {
    stopServing();
    throw reviveError(
      opened.code ?? 'ERR_INTERNAL',
      opened.message ?? 'the Service Worker could not open the blob',
    );
  }
  // The message is authenticated by its envelope; a blob of another size is not the one it describes. The
  // worker refuses it too when it is told the size, but a worker of an older version still installed is not.
  if (request.size !== undefined && opened.size !== request.size) {
    stopServing();
    void ask(registration.worker, { type: 'close', id });
    throw new DecryptionError();
  }
  return {
    url: new URL(`${STREAM_PATH_SEGMENT}${id}`, registration.scope).href,
    size: opened.size ?? 0,
    status: async () => (await ask(registration.worker, { type: 'status', id })).code,
    close: async () => {
      stopServing();
      await ask(registration.worker, { type: 'close', id });
    },
  };
}

/**
 * A relative URL source made absolute against the page (the worker-side reads run in the page).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a URL that does not parse (the function's,
 *   when it is asked).
 */
function pageRelative(source: MediaDownloadSource): MediaDownloadSource {
  const base = globalThis.location?.href;
  const absolute = (url: string, what: string): string => {
    try {
      return new URL(url, base).href;
    } catch (cause) {
      throw new InvalidArgumentError(
        `expected a URL (absolute, or relative to the page) for ${what} but it could not be parsed`,
        { cause },
      );
    }
  };
  if (typeof source === 'string') return absolute(source, '`source`');
  if (typeof source === 'function') {
    return async (ref: string) => absolute(String(await source(ref)), 'what `source` returned');
  }
  return source;
}
