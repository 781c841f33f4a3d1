/**
 * The browser player: fetches an encrypted blob from the same origin, shows the ThumbHash placeholder at
 * once, decrypts with the universal entry (WebCrypto; nothing from Node), and only when every chunk has
 * authenticated shows the image, plays the video, or offers the file. A blob that fails authentication
 * shows an error and no content: unverified bytes never reach an element.
 *
 * Parameters come from the URL fragment (never sent to the server): `src` (same-origin blob URL), `key`
 * (base64 or base64url blob key), and either `message` (a photo/video/file message as JSON) or `mime`
 * and `ref` (the blob's `media/<id>`; + optional `format=v1`). A v2 blob is bound to its ref: the page
 * decrypts it only under the ref the message (or `ref`) names. `window.happyPlayer.play(params)` does the same for an embedding page.
 *
 * @module
 */
import { thumbHashToDataURL } from 'thumbhash';
import { fromBase64 } from '../src/envelope.js';
import { DecryptionError, InvalidArgumentError, isHappyMediaError } from '../src/errors.js';
import { downloadMedia, type MediaInput, parseSessionMessage } from '../src/index.js';
import { blobSink, openStreamingMedia, registerMediaServiceWorker } from '../src/web/index.js';

/** What the player needs to show one media blob. */
export interface PlayParams {
  /** Same-origin URL of the encrypted blob. */
  src: string;
  /** The 32-byte blob key. */
  key: Uint8Array;
  /** A v2 photo/video/file message (its thumbhash, type and MIME type are used). */
  message?: unknown;
  /** MIME type when there is no message. */
  mime?: string;
  /** The blob's ref (`media/<id>`) when there is no message; a v2 blob needs it (it is bound to it). */
  ref?: string;
  /** `v1` for Happy's whole-blob attachments. */
  format?: 'v1' | 'v2';
  /**
   * Seekable streaming for v2 videos through the Service Worker `sw.js` (next to the page): the video
   * starts and seeks before the whole blob arrived. Needs a blob server that answers Range requests.
   */
  stream?: boolean;
}

type Kind = 'photo' | 'video' | 'file';

const stage = document.getElementById('stage') as HTMLDivElement;
const statusLine = document.getElementById('status') as HTMLParagraphElement;
const progress = document.getElementById('progress') as HTMLProgressElement;
let currentUrl: string | undefined;

function setState(state: 'loading' | 'ready' | 'error', text: string): void {
  document.body.dataset.state = state;
  statusLine.dataset.kind = state;
  statusLine.setAttribute('role', state === 'error' ? 'alert' : 'status');
  statusLine.textContent = text;
}

function fail(error: unknown): void {
  // No partial content stays on screen: remove everything, revoke the object URL.
  stage.replaceChildren();
  if (currentUrl) URL.revokeObjectURL(currentUrl);
  currentUrl = undefined;
  progress.hidden = true;
  // The page's own failures (the browser cannot show the media) carry no library code.
  const code = isHappyMediaError(error) ? error.code : 'page';
  const text =
    code === 'ERR_DECRYPTION_FAILED'
      ? 'This media could not be verified (wrong key or tampered data); nothing is shown.'
      : `This media could not be played: ${error instanceof Error ? error.message : String(error)}`;
  document.body.dataset.error = code;
  setState('error', text);
}

function decodeKey(text: string): Uint8Array {
  // URLSearchParams turns '+' into ' '; base64url is accepted too.
  let b64 = text.trim().replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/');
  while (b64.length % 4 !== 0) b64 += '=';
  return fromBase64(b64, 'key');
}

function describe(params: PlayParams): {
  kind: Kind;
  mime: string;
  ref: string;
  thumbhash?: string;
  name?: string;
  width?: number;
  height?: number;
} {
  if (params.message !== undefined) {
    const parsed = parseSessionMessage(params.message);
    if (!parsed.success) throw parsed.error;
    const m = parsed.data;
    if (m.type === 'photo')
      return {
        kind: 'photo',
        ref: m.ref,
        mime: params.mime ?? 'image/*',
        thumbhash: m.thumbhash,
        width: m.width,
        height: m.height,
      };
    if (m.type === 'video')
      return {
        kind: 'video',
        ref: m.ref,
        mime: m.mimeType,
        thumbhash: m.thumbhash,
        width: m.width,
        height: m.height,
      };
    if (m.type === 'file') return { kind: 'file', ref: m.ref, mime: m.mimeType, name: m.name };
    throw new Error(`a ${m.type} message has no media`);
  }
  const mime = params.mime ?? 'application/octet-stream';
  // A v1 blob is bound to nothing (Happy's fixed format): its ref only names it in errors.
  const ref = params.ref ?? (params.format === 'v1' ? 'media/player' : undefined);
  if (ref === undefined) {
    throw new InvalidArgumentError(
      "expected the blob's ref (ref=media/<id>, or a message) for a v2 blob: it decrypts only under the ref it was bound to",
    );
  }
  return {
    kind: mime.startsWith('image/') ? 'photo' : mime.startsWith('video/') ? 'video' : 'file',
    ref,
    mime,
  };
}

function showPlaceholder(thumbhash: string | undefined, width?: number, height?: number): void {
  if (!thumbhash) return;
  const img = document.createElement('img');
  img.id = 'placeholder';
  img.alt = '';
  img.src = thumbHashToDataURL(fromBase64(thumbhash, 'thumbhash'));
  if (width && height) img.style.aspectRatio = `${width} / ${height}`;
  stage.replaceChildren(img);
}

/**
 * Downloads and decrypts with `downloadMedia` into a `Blob` sink; resolves only when the whole blob
 * authenticated (the sink receives verified chunks only and is dropped on any failure).
 */
async function fetchVerified(params: PlayParams, ref: string, mime: string): Promise<Blob> {
  const url = new URL(params.src, location.href);
  if (url.origin !== location.origin) throw new Error('the blob must come from this page’s origin');
  progress.hidden = false;
  // The page addresses the blob by URL; the ref binds a v2 blob (and names it in errors).
  return downloadMedia(
    { ref, ...(params.format === 'v1' ? { format: 'v1' as const } : {}) },
    {
      source: url.href,
      fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin', cache: 'no-store' }),
      blobKey: params.key,
      sink: blobSink(mime === 'image/*' ? '' : mime),
      onProgress: ({ done, total }) => {
        progress.value = total > 0 ? done / total : 1;
      },
    },
  );
}

/** Points a `<video>` at the Service Worker, which decrypts only the ranges the element asks for. */
async function streamVideo(
  params: PlayParams,
  ref: string,
  mime: string,
): Promise<{ url: string; status: () => Promise<string | undefined> }> {
  // The same source downloadMedia takes (here the blob's URL); the worker reads it through the page.
  return openStreamingMedia(
    await registerMediaServiceWorker('sw.js'),
    (params.message as MediaInput | undefined) ?? { ref, mimeType: mime },
    { source: params.src, blobKey: params.key },
  );
}

/** Plays one blob; the page's state ends as `ready` or `error`. */
export async function play(params: PlayParams): Promise<void> {
  try {
    setState('loading', 'Downloading and verifying…');
    const info = describe(params);
    showPlaceholder(info.thumbhash, info.width, info.height);
    if (params.stream && info.kind === 'video' && params.format !== 'v1') {
      const stream = await streamVideo(params, info.ref, info.mime);
      const video = await showVideo(stream.url);
      // A chunk that fails later ends the worker's response with an error: show it, keep nothing.
      video.addEventListener('error', () => {
        void stream
          .status()
          .then((code) =>
            fail(
              code === 'ERR_DECRYPTION_FAILED'
                ? new DecryptionError()
                : new Error('the video stopped playing'),
            ),
          );
      });
      setState('ready', 'Streaming; every chunk is verified before it plays.');
      return;
    }
    // Every chunk has authenticated when this resolves: only now do the bytes become something an
    // element can read.
    const blob = await fetchVerified(params, info.ref, info.mime);
    currentUrl = URL.createObjectURL(blob);
    progress.hidden = true;
    if (info.kind === 'video') {
      await showVideo(currentUrl);
    } else if (info.kind === 'photo') {
      const img = document.createElement('img');
      img.id = 'media';
      img.alt = 'photo';
      const ready = new Promise<void>((resolve, reject) => {
        img.addEventListener('load', () => resolve(), { once: true });
        img.addEventListener('error', () => reject(new Error('the browser cannot show this image')), {
          once: true,
        });
      });
      img.src = currentUrl;
      await ready;
      stage.replaceChildren(img);
    } else {
      const link = document.createElement('a');
      link.id = 'media';
      link.href = currentUrl;
      link.download = info.name ?? 'file';
      link.textContent = `Save ${info.name ?? 'file'} (${blob.size} bytes)`;
      stage.replaceChildren(link);
    }
    setState('ready', 'Verified.');
  } catch (error) {
    fail(error);
  }
}

/** Adds a `<video>` for `url` and resolves when its metadata loaded (then the placeholder goes). */
async function showVideo(url: string): Promise<HTMLVideoElement> {
  const video = document.createElement('video');
  video.id = 'media';
  video.controls = true;
  video.playsInline = true;
  video.preload = 'metadata';
  const ready = new Promise<void>((resolve, reject) => {
    video.addEventListener('loadedmetadata', () => resolve(), { once: true });
    video.addEventListener(
      'error',
      () =>
        reject(
          new Error(`the browser cannot play this video (${video.error?.message || video.error?.code})`),
        ),
      { once: true },
    );
  });
  video.src = url;
  stage.append(video);
  await ready;
  stage.querySelector('#placeholder')?.remove();
  return video;
}

function paramsFromFragment(): PlayParams | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const src = fragment.get('src');
  const key = fragment.get('key');
  if (!src || !key) return undefined;
  const message = fragment.get('message');
  const format = fragment.get('format');
  return {
    src,
    key: decodeKey(key),
    ...(message ? { message: JSON.parse(message) as unknown } : {}),
    ...(fragment.get('mime') ? { mime: fragment.get('mime')! } : {}),
    ...(fragment.get('ref') ? { ref: fragment.get('ref')! } : {}),
    ...(format === 'v1' ? { format: 'v1' as const } : {}),
    ...(fragment.get('stream') === '1' ? { stream: true } : {}),
  };
}

declare global {
  interface Window {
    happyPlayer: { play: typeof play };
  }
}
window.happyPlayer = { play };

try {
  const params = paramsFromFragment();
  if (params) void play(params);
  else setState('ready', 'Nothing to play: open this page with #src=…&key=…&message=…');
} catch (error) {
  fail(error);
}
