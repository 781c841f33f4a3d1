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

/** The bytes `[offset, offset + length)` of the blob, part after part, each part asked when it is reached. */
function partsStream(
  store: ReadableBlobStore,
  layout: PartLayout,
  parts: readonly string[],
  offset: number,
  length: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const { first, last } = partsTouching(layout, offset, length);
  let index = first;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let expected = 0;
  let received = 0;
  const end = offset + length;
  const open = async () => {
    const span = partCiphertext(layout, index);
    const from = Math.max(offset, span.offset);
    const to = Math.min(end, span.offset + span.length);
    expected = to - from;
    received = 0;
    let told: number | undefined;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await store.get(
        parts[index] as string,
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
        await shortPart(store, layout, parts, index, 0, expected);
      throw error;
    }
    if (told !== undefined && told !== span.length) {
      await body.cancel().catch(() => undefined);
      throw new DecryptionError();
    }
    reader = body.getReader();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
        if (index > last) {
          controller.close();
          return;
        }
        if (reader === undefined) await open();
        const step = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        if (step.done) {
          reader = undefined;
          if (received < expected) await shortPart(store, layout, parts, index, received, expected);
          index += 1;
          continue;
        }
        received += step.value.length;
        if (received > expected) {
          throw new StorageError(`the store sent more of part ${index} than asked for; it is misbehaving`, {
            code: 'ERR_DOWNLOAD_FAILED',
          });
        }
        if (step.value.length === 0) continue;
        controller.enqueue(step.value);
        return;
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason).catch(() => undefined);
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
