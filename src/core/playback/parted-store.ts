/**
 * The parts of one blob, read as that one blob: a {@link ReadableBlobStore} whose only blob is the
 * concatenation of the attachments a manifest names, in order. A range read asks only the parts it lies
 * in, each for exactly its share of the range; every reader (downloadMedia's resumable download, random
 * access through `storeRangeSource`, the Service Worker) reads media in parts through it as it reads any
 * blob. It holds no key: the manifest it is given was opened by the caller, and the bytes it returns are
 * authenticated downstream, chunk by chunk, under the parts' context.
 *
 * A part the store says is of another length than the manifest's layout gives it is not the part the
 * manifest names: `ERR_DECRYPTION_FAILED`, as for a whole blob of the wrong length.
 *
 * @module
 */
import type { PartsManifest } from '../blob/manifest.js';
import { type PartLayout, partCiphertext, partLayout, partsTouching } from '../blob/parts.js';
import {
  AbortedError,
  DecryptionError,
  InvalidArgumentError,
  isHappyMediaError,
  StorageError,
} from '../errors.js';
import { checkRange, clipRange } from '../storage/blob-store.js';
import { markRetryable } from '../transport/retry.js';
import type { ReadableBlobStore } from './resumable-download.js';

/** A {@link ReadableBlobStore} over the parts of one blob, with what it knows of them. */
export interface PartedBlobStore extends ReadableBlobStore {
  /** How the blob is cut. */
  readonly layout: PartLayout;
  /** The parts' refs in `store`, in order. */
  readonly parts: readonly string[];
}

/**
 * The blob the manifest describes, read from the parts it names in `store`. `get` and `head` answer for
 * `ref` (the message's ref, under which the manifest is stored) only.
 *
 * @example
 * ```ts
 * const blob = partedBlobStore(store, message.ref, manifest);
 * const reader = await openBlobRandomAccess(storeRangeSource(blob, message.ref), blobKey, {
 *   context: partsBlobContext(manifest.binding),
 * });
 * ```
 */
export function partedBlobStore(
  store: ReadableBlobStore,
  ref: string,
  manifest: PartsManifest,
): PartedBlobStore {
  const layout = partLayout(manifest.plaintextSize, manifest.chunksPerPart);
  const parts = [...manifest.parts];
  const own = (asked: string) => {
    if (asked !== ref) {
      throw new InvalidArgumentError(
        `expected the ref this view of parts answers for (${ref}) but received ${asked}`,
      );
    }
  };
  return {
    layout,
    parts,
    async head(asked) {
      own(asked);
      return { size: layout.ciphertextSize };
    },
    async get(asked, range, options = {}) {
      own(asked);
      checkRange(range);
      const { offset, length } = clipRange(
        range ?? { offset: 0, length: layout.ciphertextSize },
        layout.ciphertextSize,
      );
      options.onSize?.(layout.ciphertextSize);
      return partsStream(store, layout, parts, offset, length, options.signal);
    },
  };
}

/** One part's answer, opened: its reader and how many bytes of it the range wants. */
interface OpenedPart {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  expected: number;
}

/**
 * The bytes `[offset, offset + length)` of the blob, part after part. The next part is asked as soon as
 * the one before it is opened, so its request's round trip overlaps the reading of this one (a part's
 * answer waits unread in its connection's buffers meanwhile); without that, every part's first byte
 * stalled the download for a round trip. At most two parts are open at once.
 */
function partsStream(
  store: ReadableBlobStore,
  layout: PartLayout,
  parts: readonly string[],
  offset: number,
  length: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const { first, last } = partsTouching(layout, offset, length);
  const end = offset + length;
  let index = first;
  let current: OpenedPart | undefined;
  let received = 0;
  /** The next part's answer, asked ahead (settled or not); its failure is met when it is reached. */
  let ahead: Promise<OpenedPart> | undefined;
  const open = async (at: number): Promise<OpenedPart> => {
    const span = partCiphertext(layout, at);
    const from = Math.max(offset, span.offset);
    const to = Math.min(end, span.offset + span.length);
    const expected = to - from;
    let told: number | undefined;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await store.get(
        parts[at] as string,
        { offset: from - span.offset, length: expected },
        {
          ...(signal ? { signal } : {}),
          onSize: (size) => {
            told = size;
          },
        },
      );
    } catch (error) {
      // A range past the end of what is stored: the part is shorter than the one the manifest names.
      if (isHappyMediaError(error, 'ERR_INVALID_ARGUMENT'))
        await shortPart(store, layout, parts, at, 0, expected);
      throw error;
    }
    if (told !== undefined && told !== span.length) {
      await body.cancel().catch(() => undefined);
      throw new DecryptionError();
    }
    return { reader: body.getReader(), expected };
  };
  const askAhead = (at: number): Promise<OpenedPart> => {
    const asked = open(at);
    // Met when the part is reached; until then an early failure is not an unhandled rejection.
    asked.catch(() => undefined);
    return asked;
  };
  /** Lets go of every part still open (the current one and the one asked ahead). */
  const release = async (reason: unknown) => {
    const reading = current;
    const next = ahead;
    current = undefined;
    ahead = undefined;
    await reading?.reader.cancel(reason).catch(() => undefined);
    await next?.then((part) => part.reader.cancel(reason)).catch(() => undefined);
  };
  const read = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (;;) {
      if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
      if (index > last) {
        controller.close();
        return;
      }
      if (current === undefined) {
        const opening = ahead ?? open(index);
        ahead = undefined;
        current = await opening;
        received = 0;
        if (index < last) ahead = askAhead(index + 1);
      }
      const step = await current.reader.read();
      if (step.done) {
        const { expected } = current;
        current = undefined;
        if (received < expected) await shortPart(store, layout, parts, index, received, expected);
        index += 1;
        continue;
      }
      received += step.value.length;
      if (received > current.expected) {
        throw new StorageError(`the store sent more of part ${index} than asked for; it is misbehaving`, {
          code: 'ERR_DOWNLOAD_FAILED',
        });
      }
      if (step.value.length === 0) continue;
      controller.enqueue(step.value);
      return;
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await read(controller);
      } catch (error) {
        // The stream errors with `error`: nothing reads the parts still open, so they are let go of.
        await release(error);
        throw error;
      }
    },
    async cancel(reason) {
      await release(reason);
    },
  });
}

/**
 * A part's answer ended early: a part stored shorter than the manifest's layout gives it is not the
 * part it names (`ERR_DECRYPTION_FAILED`); one of the right length was cut off on the way, which the
 * download resumes (a retryable failure).
 */
async function shortPart(
  store: ReadableBlobStore,
  layout: PartLayout,
  parts: readonly string[],
  index: number,
  received: number,
  expected: number,
): Promise<never> {
  const { size } = await store.head(parts[index] as string);
  if (size !== partCiphertext(layout, index).length) throw new DecryptionError();
  throw markRetryable(
    new StorageError(`part ${index + 1} of ${parts.length} ended after ${received} of ${expected} bytes`, {
      code: 'ERR_DOWNLOAD_FAILED',
    }),
  );
}
