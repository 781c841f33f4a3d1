/**
 * A blob source across a `MessagePort`: the page keeps the source `downloadMedia` takes (a URL, a function
 * of the ref, or a store, with its `fetch` and headers), and the Service Worker reads the ciphertext
 * through the port as a {@link ReadableBlobStore}. A function or a store cannot be posted to a worker, and
 * a bearer token need not be either: every request (and every renewal of an expiring URL) happens in the
 * page, while decryption and the answers to the `<video>` happen in the worker.
 *
 * Both halves live here, as they speak one protocol:
 * - {@link serveBlobSource} (page): answers `head` and ranged `get` requests for the message's ref and, for
 *   media stored in parts, the parts' refs its manifest names (which only the worker can read). A range's pieces
 *   are posted as they arrive, at most {@link SOURCE_PIECES_AHEAD} ahead of what the worker consumed, so
 *   a slow consumer holds the page's reads back and memory stays bounded.
 * - {@link channelBlobStore} (worker): the store the worker's `storeRangeSource` reads from. Errors cross
 *   as their code, message and whether a retry may get past them, so the one retry policy decides in the
 *   worker as it would in the page.
 *
 * @module
 */
import {
  AbortedError,
  type ErrorCode,
  type HappyMediaError,
  InvalidArgumentError,
  isHappyMediaError,
  reviveError,
  StorageError,
} from '../core/errors.js';
import type { ReadableBlobStore } from '../core/playback/resumable-download.js';
import { parseRef } from '../core/protocol/refs.js';
import { isRetryableError, markRetryable } from '../core/transport/retry.js';

/** Pieces the page posts ahead of what the worker consumed (each is a network read, 16–64 KiB typically). */
export const SOURCE_PIECES_AHEAD = 8;

/** An error as it crosses the port: no object identity, no cause, no stack. */
interface PortedError {
  code?: ErrorCode;
  message: string;
  retryable: boolean;
}

/** What the worker asks the page: reads of the message's ref, or of the parts its manifest names. */
type SourceRequest =
  | { type: 'head'; id: number; ref: string }
  | { type: 'get'; id: number; ref: string; range?: { offset: number; length: number } }
  | { type: 'more'; id: number }
  | { type: 'cancel'; id: number };

/** What the page answers, per request id. */
type SourceReply =
  | { type: 'size'; id: number; size: number }
  | { type: 'open'; id: number; size?: number }
  | { type: 'piece'; id: number; bytes: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'error'; id: number; error: PortedError };

function portError(error: unknown): PortedError {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...(isHappyMediaError(error) ? { code: error.code } : {}),
    message,
    retryable: isRetryableError(error),
  };
}

/** The error again, on the worker's side: the same class and code, marked retryable as it was. */
function revivePorted(ported: PortedError): HappyMediaError {
  const { code, message } = ported;
  if (code === undefined) {
    // Not ours (an app's store, the browser's fetch): a download failure, which the retry policy
    // presumed transient in the page and still does here.
    return markRetryable(new StorageError(`downloading failed: ${message}`, { code: 'ERR_DOWNLOAD_FAILED' }));
  }
  const error = reviveError(code, message);
  return ported.retryable ? markRetryable(error) : error;
}

/** One `get` the page is serving: aborted when the worker cancels it, paced by the worker's credits. */
interface ServedRead {
  abort: AbortController;
  /** Pieces the page may still post before the worker asks for more. */
  credits: number;
  /** Wakes the read waiting for a credit. */
  wake?: () => void;
}

/**
 * The ref a worker's request names, checked: `ref` itself, or (unless `onlyRef`) another `media/<id>`
 * ref. The worker is ours, but what it read came from a store.
 */
function askedRef(asked: unknown, ref: string, onlyRef: boolean): string {
  if (asked === ref) return ref;
  if (onlyRef || typeof asked !== 'string' || parseRef(asked).scheme !== 'media') {
    throw new InvalidArgumentError(
      onlyRef
        ? 'the media is stored in parts, and a fixed URL names one attachment: pass a function of the ref (or a store) for `source`'
        : 'expected a media/<id> ref from the worker',
    );
  }
  return asked;
}

/**
 * Serves one `get`, listed in `reads` while it runs: opens the read of `target()` in `store`, posts
 * `open`, each piece while the worker's credits last, then `end` or the error; nothing more once the
 * worker cancelled it.
 */
async function serveRead(
  store: ReadableBlobStore,
  reads: Map<number, ServedRead>,
  id: number,
  target: () => string,
  range: { offset: number; length: number } | undefined,
  post: (reply: SourceReply) => void,
): Promise<void> {
  const read: ServedRead = { abort: new AbortController(), credits: SOURCE_PIECES_AHEAD };
  reads.set(id, read);
  const { signal } = read.abort;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let size: number | undefined;
    const body = await store.get(
      target(),
      range === undefined ? undefined : { offset: range.offset, length: range.length },
      {
        signal,
        onSize: (bytes) => {
          size = bytes;
        },
      },
    );
    reader = body.getReader();
    if (signal.aborted) return;
    post(size === undefined ? { type: 'open', id } : { type: 'open', id, size });
    for (;;) {
      while (read.credits === 0 && !signal.aborted) {
        await new Promise<void>((resolve) => {
          read.wake = resolve;
        });
      }
      if (signal.aborted) return;
      const step = await reader.read();
      if (signal.aborted) return;
      if (step.done) break;
      read.credits -= 1;
      // Posted as a copy (structured clone): the store's array stays the store's.
      post({ type: 'piece', id, bytes: step.value });
    }
    post({ type: 'end', id });
  } catch (error) {
    if (!signal.aborted) post({ type: 'error', id, error: portError(error) });
  } finally {
    reads.delete(id);
    if (signal.aborted) await reader?.cancel().catch(() => undefined);
  }
}

/**
 * The page's half: answers the worker's reads from `store` over `port` until `port` closes: of `ref`, and
 * of any other `media/<id>` ref the worker asks for (the parts of media stored in parts) unless `onlyRef`
 * (a source that is one fixed URL names one attachment). Every `get` gets its own `AbortSignal`, aborted
 * when the worker cancels the read (a seek elsewhere).
 *
 * @returns a function that stops serving: every read in progress is cancelled and the port closed.
 */
export function serveBlobSource(
  store: ReadableBlobStore,
  ref: string,
  port: MessagePort,
  onlyRef = false,
): () => void {
  const reads = new Map<number, ServedRead>();
  const post = (reply: SourceReply) => port.postMessage(reply);
  const target = (asked: unknown) => askedRef(asked, ref, onlyRef);

  const head = async (id: number, asked: unknown) => {
    try {
      const { size } = await store.head(target(asked));
      post({ type: 'size', id, size });
    } catch (error) {
      post({ type: 'error', id, error: portError(error) });
    }
  };

  const get = (id: number, asked: unknown, range: { offset: number; length: number } | undefined) =>
    serveRead(store, reads, id, () => target(asked), range, post);

  const cancel = (id: number) => {
    const read = reads.get(id);
    if (!read) return;
    read.abort.abort(new AbortedError('the worker cancelled the read'));
    read.wake?.();
  };

  port.onmessage = (event) => {
    const request = event.data as SourceRequest;
    if (request?.type === 'head') void head(request.id, request.ref);
    else if (request?.type === 'get') void get(request.id, request.ref, request.range);
    else if (request?.type === 'cancel') cancel(request.id);
    else if (request?.type === 'more') {
      const read = reads.get(request.id);
      if (read) {
        read.credits += 1;
        const wake = read.wake;
        read.wake = undefined;
        wake?.();
      }
    }
  };
  return () => {
    for (const id of [...reads.keys()]) cancel(id);
    port.onmessage = null;
    port.close();
  };
}

/** The worker's end of the port: numbered requests, and the handler of each one's replies. */
class SourceRequests {
  #nextId = 1;
  readonly #handlers = new Map<number, (reply: SourceReply) => void>();
  readonly #port: MessagePort;

  constructor(port: MessagePort) {
    this.#port = port;
    port.onmessage = (event) => {
      const reply = event.data as SourceReply;
      this.#handlers.get(reply?.id)?.(reply);
    };
  }

  /** The id of a new request. */
  newId(): number {
    return this.#nextId++;
  }

  /** Hands the replies to request `id` to `handler`. */
  listen(id: number, handler: (reply: SourceReply) => void): void {
    this.#handlers.set(id, handler);
  }

  /** Drops the handler of request `id`: later replies to it are ignored. */
  forget(id: number): void {
    this.#handlers.delete(id);
  }

  /** Posts `request` to the page. */
  ask(request: SourceRequest): void {
    this.#port.postMessage(request);
  }
}

/**
 * One ranged read answered by the page over `requests`: resolves once the page opened it, with a stream
 * that takes its pieces as they arrive and asks for one more as each is consumed; cancelling the stream or
 * aborting `options.signal` cancels the page's read.
 */
function readAcrossPort(
  requests: SourceRequests,
  ref: string,
  range: Parameters<ReadableBlobStore['get']>[1],
  options: NonNullable<Parameters<ReadableBlobStore['get']>[2]>,
): Promise<ReadableStream<Uint8Array>> {
  const { signal, onSize } = options;
  if (signal?.aborted) {
    return Promise.reject(new AbortedError('the read was aborted', { cause: signal.reason }));
  }
  const id = requests.newId();
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: HappyMediaError | undefined;
  let wake: (() => void) | undefined;
  const settle = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const stop = () => {
    requests.forget(id);
    signal?.removeEventListener('abort', onAbort);
  };
  const onAbort = () => {
    requests.ask({ type: 'cancel', id });
    failure ??= new AbortedError('the read was aborted', { cause: signal?.reason });
    stop();
    settle();
    rejectOpen?.(failure);
  };
  let rejectOpen: ((error: HappyMediaError) => void) | undefined;
  const opened = new Promise<void>((resolve, reject) => {
    rejectOpen = reject;
    requests.listen(id, (reply) => {
      if (reply.type === 'open') {
        if (reply.size !== undefined) onSize?.(reply.size);
        resolve();
      } else if (reply.type === 'piece') {
        queue.push(reply.bytes);
        settle();
      } else if (reply.type === 'end') {
        ended = true;
        stop();
        settle();
      } else if (reply.type === 'error') {
        failure = revivePorted(reply.error);
        stop();
        reject(failure);
        settle();
      }
    });
  });
  signal?.addEventListener('abort', onAbort, { once: true });
  requests.ask(
    range === undefined
      ? { type: 'get', id, ref }
      : { type: 'get', id, ref, range: { offset: range.offset, length: range.length } },
  );
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queue.length === 0 && !ended && failure === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        const piece = queue.shift();
        if (piece !== undefined) {
          controller.enqueue(piece);
          // One piece consumed: the page may send one more.
          if (!ended && failure === undefined) requests.ask({ type: 'more', id });
          return;
        }
        if (failure !== undefined) throw failure;
        controller.close();
      },
      cancel() {
        if (!ended && failure === undefined) requests.ask({ type: 'cancel', id });
        failure ??= new AbortedError('the read was cancelled');
        stop();
        settle();
      },
    },
    { highWaterMark: 0 },
  );
  return opened.then(() => body);
}

/**
 * The worker's half: a {@link ReadableBlobStore} whose `head` and `get` are answered by the page's
 * {@link serveBlobSource} over `port`, for the ref they name.
 *
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(storeRangeSource(channelBlobStore(port), ref), key, { context });
 * ```
 */
export function channelBlobStore(port: MessagePort): ReadableBlobStore {
  const requests = new SourceRequests(port);
  return {
    head(ref) {
      const id = requests.newId();
      return new Promise<{ size: number }>((resolve, reject) => {
        requests.listen(id, (reply) => {
          requests.forget(id);
          if (reply.type === 'size') resolve({ size: reply.size });
          else if (reply.type === 'error') reject(revivePorted(reply.error));
        });
        requests.ask({ type: 'head', id, ref });
      });
    },

    get: (ref, range, options = {}) => readAcrossPort(requests, ref, range, options),
  };
}
