/**
 * Seekable streaming in the browser: the page side. Registers the app's Service Worker (a script that
 * calls `installMediaServiceWorker(self)`), hands it a blob's URL, ref and key over a `MessageChannel`,
 * and returns the URL a `<video>` element plays from. The key travels only inside the browser.
 *
 * @module
 */
import { mediaBlobContext } from '../core/blob/context.js';
import { randomBytes, toHex } from '../core/bytes.js';
import { DecryptionError, HappyMediaError, StorageError } from '../core/errors.js';
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
 * @throws {Error} when the browser has no Service Workers.
 */
export async function registerMediaServiceWorker(
  scriptUrl = 'sw.js',
): Promise<{ worker: ServiceWorker; scope: string }> {
  if (!('serviceWorker' in navigator)) throw new Error('this browser has no Service Workers');
  const registration = await navigator.serviceWorker.register(scriptUrl);
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
  return { worker: navigator.serviceWorker.controller as ServiceWorker, scope: registration.scope };
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
  if (src.origin !== location.origin) throw new Error('the blob must come from this page’s origin');
  // The worker verified the commitment and the final chunk before it says yes.
  const opened = await ask(registration.worker, {
    type: 'open',
    id,
    src: src.href,
    ref: blob.ref,
    key: blob.key,
    mime: blob.mime,
  });
  if (!opened.ok) {
    if (opened.code === 'ERR_DECRYPTION_FAILED') throw new DecryptionError();
    if (
      opened.code === 'ERR_NOT_FOUND' ||
      opened.code === 'ERR_DOWNLOAD_FAILED' ||
      opened.code === 'ERR_INVALID_REF'
    ) {
      throw new StorageError(opened.message ?? 'the blob could not be read', { code: opened.code });
    }
    throw new HappyMediaError('ERR_DOWNLOAD_FAILED', opened.message ?? 'the blob could not be opened');
  }
  return {
    url: new URL(`${STREAM_PATH_SEGMENT}${id}`, registration.scope).href,
    size: opened.size ?? 0,
    status: async () => (await ask(registration.worker, { type: 'status', id })).code,
  };
}
