/**
 * Seekable streaming in the browser: the Service Worker side. An app's worker script calls
 * {@link installMediaServiceWorker}`(self)`; the page then opens a blob with `openStreamingMedia` and
 * points a `<video>` at the URL it gets. The worker answers the element's Range requests for
 * `<scope>/__happy_media__/<id>` by reading only the ciphertext chunks each range covers and decrypting
 * them with random access. The reads go to the page that opened the blob (source-channel.ts): it holds
 * the source `downloadMedia` takes (a URL, a function of the ref that may renew an expiring URL per
 * request, or a store such as Happy's server, with a bearer token), so neither the source nor the
 * token has to be posted to the worker. Every chunk is
 * verified before any of its bytes is enqueued; a chunk that fails ends the response with an error and
 * the blob is refused (`502`) from then on, so the element never receives an unverified byte.
 *
 * Opening verifies the commitment and the final chunk, so the size the worker serves is authentic. The
 * key stays in worker memory; it never appears in a URL.
 *
 * @module
 */
import type { BlobReader } from '../core/blob/random-access.js';
import { type ErrorCode, isHappyMediaError } from '../core/errors.js';
import { openMediaRandomAccess } from '../core/playback/stored-media.js';
import { parseRangeHeader } from '../core/transport/range-header.js';
import { type RetryPolicy, retryPolicy } from '../core/transport/retry.js';
import { channelBlobStore } from './source-channel.js';

/** Path segment (under the worker's scope) whose requests the worker answers. */
export const STREAM_PATH_SEGMENT = '__happy_media__/';

/**
 * A message the page sends the worker (with a MessagePort for the answer). `open` carries a second port,
 * `source`: the page's half of the blob's source (see source-channel.ts), through which the worker
 * reads the ciphertext.
 */
export type StreamingRequest =
  | {
      type: 'open';
      id: string;
      ref: string;
      key: Uint8Array;
      mime: string;
      /** The page's source is one fixed URL: media in parts is refused with advice. */
      fixedUrl?: boolean;
      /** The plaintext size the message states: opening asks no stored size first, and refuses another. */
      size?: number;
      source: MessagePort;
    }
  | { type: 'status'; id: string }
  | { type: 'close'; id: string };

/** The worker's answer. */
export interface StreamingReply {
  ok: boolean;
  /** Plaintext size (authentic), for `open`. */
  size?: number;
  /** `ERR_*` code of the failure (`ERR_INTERNAL` for anything that is not a happy-media error: a bug). */
  code?: ErrorCode;
  message?: string;
}

/** The part of `ServiceWorkerGlobalScope` the worker uses (typed here so no WebWorker lib is needed). */
export interface ServiceWorkerScopeLike {
  readonly registration: { readonly scope: string };
  readonly location: { readonly href: string; readonly origin: string };
  readonly clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
  addEventListener(
    type: 'message',
    listener: (event: {
      data: unknown;
      ports: readonly { postMessage(message: StreamingReply): void }[];
      waitUntil(p: Promise<unknown>): void;
    }) => void,
  ): void;
  addEventListener(
    type: 'fetch',
    listener: (event: { request: Request; respondWith(response: Promise<Response>): void }) => void,
  ): void;
}

/**
 * Options of {@link installMediaServiceWorker}: the retry policy of its reads from the store. Memory per
 * request needs no option: a response streams each chunk as it arrives and verifies.
 */
export type MediaServiceWorkerOptions = RetryPolicy;

interface OpenBlob {
  reader: BlobReader;
  mime: string;
  /** The page's source: closed when the page closes the blob. */
  port: MessagePort;
  failed?: ErrorCode;
}

/**
 * The answer to a `<video>`'s request for `blob`: the range it asks for (the whole blob when it asks none
 * or one we cannot read), streamed as the covering chunks arrive and verify; a chunk that fails errors
 * the response and marks the blob failed.
 */
async function answerRequest(blob: OpenBlob | undefined, request: Request): Promise<Response> {
  if (!blob) return new Response(null, { status: 404 });
  if (blob.failed) return new Response(null, { status: 502 });
  const size = blob.reader.plaintextSize;
  // The policy of serveMedia: a Range header we cannot read is ignored (200, whole file), as RFC 9110
  // allows; media elements send what they like.
  const decision = parseRangeHeader(request.headers.get('range') ?? undefined, size);
  if (decision.kind === 'unsatisfiable') {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  }
  const partial = decision.kind === 'partial';
  const start = partial ? decision.start : 0;
  const end = partial ? decision.end : size - 1;
  // Verified pieces as the covering chunks arrive (the player's first bytes after the first chunk).
  const pieces = blob.reader.stream(start, end - start + 1);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let step: IteratorResult<Uint8Array>;
      try {
        step = await pieces.next();
      } catch (error) {
        // A chunk failed its tag (or the network failed): nothing of it is enqueued, the response
        // errors, and the blob is refused from now on.
        blob.failed = isHappyMediaError(error) ? error.code : 'ERR_INTERNAL';
        throw error;
      }
      if (step.done) controller.close();
      else controller.enqueue(step.value);
    },
    // The player dropped the response (a seek elsewhere): stop reading the store.
    async cancel() {
      await pieces.return();
    },
  });
  const headers: Record<string, string> = {
    'Content-Type': blob.mime,
    'Content-Length': String(end - start + 1),
    'Accept-Ranges': 'bytes',
  };
  if (partial) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  return new Response(body, { status: partial ? 206 : 200, headers });
}

/**
 * Opens the blob of an `open` request, reading through the page's source port, and lists it in `blobs`;
 * the reply to the page (the port closed on failure).
 */
async function openBlob(
  request: Extract<StreamingRequest, { type: 'open' }>,
  reads: Required<RetryPolicy>,
  blobs: Map<string, OpenBlob>,
): Promise<StreamingReply> {
  const port = request.source;
  try {
    // Every read goes through the page, which holds the source (URL, function of the ref or store,
    // with its headers): ranged reads, retried here by the one policy.
    const store = channelBlobStore(port);
    // Bound to the ref the message names (media in parts through its manifest): a blob served under
    // another ref fails at open.
    const reader = await openMediaRandomAccess(store, request.ref, request.key, {
      ...reads,
      fixedUrl: request.fixedUrl === true,
      ...(request.size === undefined ? {} : { size: request.size }),
    });
    blobs.set(request.id, { reader, mime: request.mime, port });
    return { ok: true, size: reader.plaintextSize };
  } catch (error) {
    port.close();
    return {
      ok: false,
      code: isHappyMediaError(error) ? error.code : 'ERR_INTERNAL',
      message: String(error),
    };
  }
}

/**
 * Makes `scope` (the worker's `self`) answer streaming requests for blobs the page opens.
 *
 * @example
 * ```ts
 * // sw.ts, bundled next to the page
 * import { installMediaServiceWorker } from 'happy-media/web';
 * installMediaServiceWorker(self as unknown as ServiceWorkerScopeLike);
 * ```
 */
export function installMediaServiceWorker(
  scope: ServiceWorkerScopeLike,
  options: MediaServiceWorkerOptions = {},
): void {
  const reads = retryPolicy(options);
  const prefix = new URL(STREAM_PATH_SEGMENT, scope.registration.scope).pathname;
  const blobs = new Map<string, OpenBlob>();

  scope.addEventListener('install', () => {
    void scope.skipWaiting();
  });
  scope.addEventListener('activate', (event) => {
    event.waitUntil(scope.clients.claim());
  });
  scope.addEventListener('message', (event) => {
    const data = event.data as StreamingRequest | undefined;
    const port = event.ports[0];
    if (!port) return;
    if (data?.type === 'close') {
      blobs.get(data.id)?.port.close();
      blobs.delete(data.id);
      port.postMessage({ ok: true });
      return;
    }
    if (data?.type === 'status') {
      const failed = blobs.get(data.id)?.failed;
      port.postMessage({ ok: failed === undefined, ...(failed === undefined ? {} : { code: failed }) });
      return;
    }
    if (data?.type !== 'open') return;
    event.waitUntil(openBlob(data, reads, blobs).then((reply) => port.postMessage(reply)));
  });
  scope.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== scope.location.origin || !url.pathname.startsWith(prefix)) return;
    event.respondWith(answerRequest(blobs.get(url.pathname.slice(prefix.length)), event.request));
  });
}
