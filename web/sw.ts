/**
 * Seekable browser playback (the stretch goal): a Service Worker that answers the `<video>` element's
 * Range requests for `/__happy_media__/<id>` by fetching only the ciphertext chunks each range covers
 * (HTTP Range against the same-origin blob URL) and decrypting them with the universal entry's random
 * access. Every chunk is verified before any of its bytes is enqueued; a chunk that fails ends the
 * response with an error, so the element never receives an unverified byte.
 *
 * The page registers a blob with `postMessage({ type: 'open', id, src, key, mime })` on a MessageChannel;
 * the worker opens it (commitment and final chunk verified, so the size is authentic) and answers
 * `{ ok: true, size }` or `{ ok: false, code }` before the page points the element at the URL.
 *
 * @module
 */
import { type BlobReader, isHappyMediaError, openBlobRandomAccess, type RangeSource } from '../src/index.js';

declare const self: ServiceWorkerGlobalScope;

/** Path (under the worker's scope) it answers; everything else goes to the network untouched. */
const PREFIX = new URL('__happy_media__/', self.registration.scope).pathname;
/** Plaintext bytes decrypted per pull of a response body. */
const PIECE = 256 * 1024;

type Request_ =
  | { type: 'open'; id: string; src: string; key: Uint8Array; mime: string }
  | { type: 'status'; id: string };

/** Open blobs by id; `failed` holds the code of the first failure, after which the blob is refused. */
const blobs = new Map<string, { reader: BlobReader; mime: string; failed?: string }>();

/** Ciphertext ranges over HTTP Range requests to a same-origin URL. */
function httpRangeSource(src: string): RangeSource {
  let size: Promise<number> | undefined;
  const fetchRange = async (start: number, end: number, signal?: AbortSignal) => {
    const response = await fetch(src, {
      headers: { Range: `bytes=${start}-${end}` },
      cache: 'no-store',
      signal,
    });
    if (response.status !== 206)
      throw new Error(`expected 206 for a range of the blob but received ${response.status}`);
    return response;
  };
  return {
    size() {
      size ??= fetchRange(0, 0).then(async (response) => {
        await response.arrayBuffer();
        const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1]);
        if (!Number.isSafeInteger(total)) throw new Error('the blob server sent no Content-Range total');
        return total;
      });
      return size;
    },
    async read(offset, length, signal) {
      if (length === 0) return new Uint8Array(0);
      const response = await fetchRange(offset, offset + length - 1, signal);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number; partial: boolean } | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return { start: 0, end: size - 1, partial: false };
  if (match[1] === '') {
    const n = Number(match[2]);
    return n === 0 || size === 0 ? undefined : { start: Math.max(0, size - n), end: size - 1, partial: true };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start >= size || end < start ? undefined : { start, end, partial: true };
}

async function answer(request: Request, id: string): Promise<Response> {
  const blob = blobs.get(id);
  if (!blob) return new Response(null, { status: 404 });
  if (blob.failed) return new Response(null, { status: 502 });
  const size = blob.reader.plaintextSize;
  const range = parseRange(request.headers.get('range'), size);
  if (!range) return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  let position = range.start;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (position > range.end) {
        controller.close();
        return;
      }
      const length = Math.min(PIECE, range.end - position + 1);
      let bytes: Uint8Array;
      try {
        bytes = await blob.reader.read(position, length);
      } catch (error) {
        // A chunk failed its tag (or the network failed): nothing of it is enqueued, the response
        // errors, and the blob is refused from now on.
        blob.failed = isHappyMediaError(error) ? error.code : 'ERR_PLAYBACK';
        throw error;
      }
      position += length;
      controller.enqueue(bytes);
    },
  });
  const headers: Record<string, string> = {
    'Content-Type': blob.mime,
    'Content-Length': String(range.end - range.start + 1),
    'Accept-Ranges': 'bytes',
  };
  if (range.partial) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
  return new Response(body, { status: range.partial ? 206 : 200, headers });
}

self.addEventListener('install', () => {
  void self.skipWaiting();
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  const data = event.data as Request_;
  const port = event.ports[0];
  if (!port) return;
  if (data?.type === 'status') {
    port.postMessage({ ok: !blobs.get(data.id)?.failed, code: blobs.get(data.id)?.failed });
    return;
  }
  if (data?.type !== 'open') return;
  event.waitUntil(
    (async () => {
      try {
        const src = new URL(data.src, self.location.href);
        if (src.origin !== self.location.origin) throw new Error('the blob must come from this origin');
        const reader = await openBlobRandomAccess(httpRangeSource(src.href), data.key);
        blobs.set(data.id, { reader, mime: data.mime });
        port.postMessage({ ok: true, size: reader.plaintextSize });
      } catch (error) {
        port.postMessage({
          ok: false,
          code: isHappyMediaError(error) ? error.code : 'ERR_PLAYBACK',
          message: String(error),
        });
      }
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(PREFIX)) return;
  event.respondWith(answer(event.request, url.pathname.slice(PREFIX.length)));
});
