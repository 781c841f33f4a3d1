/**
 * Reading an upload body whose length was announced up front: every store needs the same checks (not
 * shorter, not longer, abortable, progress), so they live here once.
 *
 * @module
 */
import { assertNonNegativeInteger, describeValue } from '../bytes.js';
import { AbortedError, InvalidArgumentError, StorageError } from '../errors.js';
import type { WriteOptions } from './blob-store.js';

/** The error every store throws when a body does not have the announced length. */
export function lengthMismatch(announced: number, received: number, complete: boolean): StorageError {
  return new StorageError(
    complete
      ? `the upload body ended after ${received} bytes but ${announced} were announced; nothing was stored`
      : `the upload body is longer than the ${announced} bytes announced; nothing was stored`,
    { code: 'ERR_UPLOAD_FAILED' },
  );
}

/** Throws the library's abort error if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new AbortedError('the upload was aborted; nothing was stored', { cause: signal.reason });
}

/**
 * Yields the chunks of `body`, checking that it carries exactly `size` bytes, and reports progress after
 * the consumer has processed each chunk (i.e. when it asks for the next one). Stops with
 * {@link AbortedError} when `signal` aborts, with `ERR_UPLOAD_FAILED` on a length mismatch, and with the
 * body's own error if the body errors. The body is cancelled whenever reading stops early.
 *
 * @throws {InvalidArgumentError} when `size` is not a non-negative integer or a chunk is not bytes.
 */
export async function* readSizedBody(
  body: ReadableStream<Uint8Array>,
  size: number,
  options: WriteOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  assertNonNegativeInteger(size, 'size');
  if (!(body instanceof ReadableStream)) {
    throw new InvalidArgumentError(
      `expected a ReadableStream for \`body\` but received ${describeValue(body)}`,
    );
  }
  const { signal, onProgress } = options;
  throwIfAborted(signal);
  const reader = body.getReader();
  // An abort must also end a read that is waiting for the producer.
  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let done = 0;
  let finished = false;
  try {
    onProgress?.(0, size);
    for (;;) {
      const next = await reader.read();
      throwIfAborted(signal);
      if (next.done) break;
      const chunk = next.value;
      if (!(chunk instanceof Uint8Array)) {
        throw new InvalidArgumentError(
          `expected Uint8Array chunks in \`body\` but received ${describeValue(chunk)}`,
        );
      }
      if (chunk.length === 0) continue;
      if (done + chunk.length > size) throw lengthMismatch(size, done + chunk.length, false);
      yield chunk;
      throwIfAborted(signal);
      done += chunk.length;
      onProgress?.(done, size);
    }
    if (done !== size) throw lengthMismatch(size, done, true);
    finished = true;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
