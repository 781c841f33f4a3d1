/**
 * Seekable streaming in the browser: the page side. Registers the app's Service Worker (a script that
 * calls `installMediaServiceWorker(self)`), hands it a blob's URL, ref and key over a `MessageChannel`,
 * and returns the URL a `<video>` element plays from. The key travels only inside the browser.
 *
 * @module
 */
import { mediaBlobContext } from '../core/blob/context.js';
import { randomBytes, toHex } from '../core/bytes.js';
import {
  DecryptionError,
  type ErrorCode,
  HappyMediaError,
  InternalError,
  InvalidArgumentError,
  NotSupportedError,
  StorageError,
  type StorageErrorCode,
} from '../core/errors.js';
import { STREAM_PATH_SEGMENT, type StreamingReply, type StreamingRequest } from './service-worker.js';

/** A blob opened for streaming. */
export interface StreamingMedia {
  /** Same-origin URL to give a `<video>`/`<audio>` element (valid while the worker runs). */
  url: string;
  /** Plaintext size in bytes (authenticated: the final chunk verified). */
  size: number;
  /** `undefined` while every chunk served so far verified, else the `ERR_*` code of the failure. */
  status(): Promise<string | undefined>;
}

function ask(worker: ServiceWorker, message: StreamingRequest): Promise<StreamingReply> {
  const channel = new MessageChannel();
  const reply = new Promise<StreamingReply>((resolve) => {
    channel.port1.onmessage = (event) => resolve(event.data as StreamingReply);
  });
  worker.postMessage(message, [channel.port2]);
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

const STORAGE_CODES: ReadonlySet<ErrorCode> = new Set<StorageErrorCode>([
  'ERR_STORAGE',
  'ERR_NOT_FOUND',
  'ERR_INVALID_REF',
  'ERR_DOWNLOAD_FAILED',
  'ERR_UPLOAD_FAILED',
]);

/** The worker's failure as the page's error: its class again where the code names one, its code always. */
function workerError(
  code: ErrorCode,
  message = 'the Service Worker could not open the blob',
): HappyMediaError {
  if (code === 'ERR_DECRYPTION_FAILED') return new DecryptionError();
  if (STORAGE_CODES.has(code)) return new StorageError(message, { code: code as StorageErrorCode });
  if (code === 'ERR_INVALID_ARGUMENT') return new InvalidArgumentError(message);
  if (code === 'ERR_INTERNAL') return new InternalError(message);
  return new HappyMediaError(code, message);
}

/**
 * Opens a same-origin encrypted blob (v2) in the registered worker for seekable playback. `ref` is the
 * ref the message names (`media/<id>`): the blob is bound to it, so a blob served under another ref
 * fails as `ERR_DECRYPTION_FAILED`.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the commitment or final chunk does not verify
 *   (wrong key, tampering, or a blob bound to another ref).
 * @throws {StorageError} `ERR_INVALID_REF` for a ref that is not `media/<id>`, before the worker is asked.
 * @throws {StorageError} when the blob cannot be read (`ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a `src` of another origin.
 * @throws {InternalError} `ERR_INTERNAL` when the worker failed in a way it did not expect (a bug).
 * @example
 * ```ts
 * const { worker, scope } = await registerMediaServiceWorker('sw.js');
 * const media = await openStreamingMedia({ worker, scope }, { src: blobUrl, ref: message.ref, key, mime: 'video/mp4' });
 * video.src = media.url;
 * ```
 */
export async function openStreamingMedia(
  registration: { worker: ServiceWorker; scope: string },
  blob: { src: string; ref: string; key: Uint8Array; mime: string },
): Promise<StreamingMedia> {
  mediaBlobContext(blob.ref);
  const id = toHex(randomBytes(16));
  const src = new URL(blob.src, location.href);
  if (src.origin !== location.origin) {
    throw new InvalidArgumentError(
      `expected a URL of this page's origin (${location.origin}) for \`src\` but received one of ${src.origin}`,
    );
  }
  // The worker verified the commitment and the final chunk before it says yes.
  const opened = await ask(registration.worker, {
    type: 'open',
    id,
    src: src.href,
    ref: blob.ref,
    key: blob.key,
    mime: blob.mime,
  });
  if (!opened.ok) throw workerError(opened.code ?? 'ERR_INTERNAL', opened.message);
  return {
    url: new URL(`${STREAM_PATH_SEGMENT}${id}`, registration.scope).href,
    size: opened.size ?? 0,
    status: async () => (await ask(registration.worker, { type: 'status', id })).code,
  };
}
