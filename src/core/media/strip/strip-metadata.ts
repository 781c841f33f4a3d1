/**
 * Private photos: location and identifying metadata (GPS, camera make, model and serial, owner, lens,
 * software, original time) neutralised before a picture or video is encrypted, losslessly and in place.
 * No pixel is decoded or encoded again; every metadata block keeps its size and is overwritten (an EXIF
 * block with one that holds only the orientation, so the picture still shows upright; the rest with
 * zeros, an empty XMP packet, or a `free` box), so the file's size does not change: the upload announces
 * `ciphertextSize(size)` before the first byte is read, and no offset inside the file moves (a video's
 * chunk offsets, a HEIF's item locations, a JPEG's MPF pictures).
 *
 * Formats, by content: JPEG, PNG, WebP, and ISO base media files (HEIC/HEIF, AVIF, MP4, MOV, 3GP); what
 * each keeps and overwrites is in its walker (jpeg-metadata.ts, png-metadata.ts, webp-metadata.ts,
 * isobmff-metadata.ts). Anything else passes unchanged.
 *
 * Two ways to run, one walker: with random access, {@link planMetadataStrip} reads the structure (headers
 * and index boxes, little of the data) and returns the edits, which {@link stripMetadataStream} then
 * applies as the bytes pass; over a stream alone, {@link stripMetadataStream} walks the structure as the
 * bytes arrive, holding only the block being read (a JPEG segment, a PNG `eXIf` chunk, a `moov` box).
 * One pass cannot reach metadata that the file describes only after its bytes went by (a video whose
 * `moov` follows its `mdat` and has a timed-metadata track; a HEIF whose metadata item precedes its
 * `meta` box): the stream then fails with `ERR_NOT_SUPPORTED` and nothing is stored.
 *
 * @module
 */
import type { RangeSource } from '../../blob/random-access.js';
import { assertNonNegativeInteger } from '../../bytes.js';
import { InternalError } from '../../errors.js';
import {
  applyEdits,
  type ByteEdit,
  editEnd,
  lateEditError,
  PlanningSource,
  StreamingSource,
  type StripSource,
} from './byte-edits.js';
import { walkIsobmff } from './isobmff-metadata.js';
import { walkJpeg } from './jpeg-metadata.js';
import { walkPng } from './png-metadata.js';
import { walkWebp } from './webp-metadata.js';

/** The edits that neutralise a file's metadata (sorted, never overlapping), made by {@link planMetadataStrip}. */
export interface MetadataStripPlan {
  /** Same-size overwrites, by offset. */
  readonly edits: readonly ByteEdit[];
}

/** Runs the walker for the file's format, told by its first bytes. */
async function walkMetadata(source: StripSource): Promise<void> {
  const head = await source.read(0, 12);
  const text = (at: number, length: number) => String.fromCharCode(...head.subarray(at, at + length));
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return walkJpeg(source);
  if (text(0, 8) === '\x89PNG\r\n\x1a\n') return walkPng(source);
  if (text(0, 4) === 'RIFF' && text(8, 4) === 'WEBP') return walkWebp(source);
  if (text(4, 4) === 'ftyp') return walkIsobmff(source);
}

/**
 * Plans the neutralisation of a file's metadata from random access to it (bytes in memory:
 * `bufferRangeSource`; a file: `fileRangeSource`): reads its structure, little of its data.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a video index (`moov`) or HEIF `meta` box over 64 MiB.
 * @throws what `source.read` throws.
 * @example
 * ```ts
 * const plan = await planMetadataStrip(bufferRangeSource(bytes));
 * const stripped = bytesStream(bytes).pipeThrough(stripMetadataStream(bytes.length, plan));
 * ```
 */
export async function planMetadataStrip(source: RangeSource): Promise<MetadataStripPlan> {
  const size = assertNonNegativeInteger(await source.size(), 'size');
  const planning = new PlanningSource(size, (offset, length) => source.read(offset, length));
  await walkMetadata(planning);
  return { edits: planning.list.edits };
}

/**
 * A stream that passes a file's `size` bytes on with their metadata neutralised: the edits of `plan`
 * applied, or, without a plan, those a walk of the bytes as they pass finds. The output has exactly as
 * many bytes as the input.
 *
 * @throws (through the stream) {NotSupportedError} `ERR_NOT_SUPPORTED` at the end of a single pass that
 *   found metadata after its bytes had gone (give random access, see the module notes);
 *   {LimitError} `ERR_LIMIT_EXCEEDED` for an index box over 64 MiB.
 * @example
 * ```ts
 * const body = stream.pipeThrough(stripMetadataStream(size)).pipeThrough(createEncryptStream(key, { context }));
 * ```
 */
export function stripMetadataStream(
  size: number,
  plan?: MetadataStripPlan,
): TransformStream<Uint8Array, Uint8Array> {
  assertNonNegativeInteger(size, 'size');
  let source: StreamingSource;
  let walking: Promise<void> | undefined;
  let failure: unknown;
  const failed = () => failure !== undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      source = new StreamingSource(size, (bytes) => controller.enqueue(bytes));
      if (plan) {
        for (const edit of plan.edits) source.edit(edit);
        source.finish();
        return;
      }
      walking = walkMetadata(source).then(
        () => source.finish(),
        (error: unknown) => {
          failure = error ?? new InternalError('the metadata walk failed without a reason');
        },
      );
    },
    async transform(piece) {
      source.push(piece);
      if (walking) await source.settled(walking);
      if (failed()) throw failure;
    },
    async flush() {
      source.end();
      await walking;
      if (failed()) throw failure;
      source.finish();
      if (source.late) throw lateEditError();
    },
  });
}

/**
 * A stream that applies `plan` to a span of the file starting at byte `offset` (a part of media in parts,
 * read again from the file): the bytes it passes on are the span's, with the plan's edits that fall in
 * it. The output has exactly as many bytes as the input.
 *
 * @example
 * ```ts
 * const part = (await file.read(offset, length)).pipeThrough(applyMetadataPlan(plan, offset));
 * ```
 */
export function applyMetadataPlan(
  plan: MetadataStripPlan,
  offset: number,
): TransformStream<Uint8Array, Uint8Array> {
  assertNonNegativeInteger(offset, 'offset');
  const { edits } = plan;
  // The first edit that ends after the span starts (edits are sorted and never overlap).
  let next = 0;
  while (next < edits.length && editEnd(edits[next]!) <= offset) next++;
  let at = offset;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      const applied = applyEdits(edits, next, at, piece);
      next = applied.next;
      at += piece.length;
      controller.enqueue(applied.bytes);
    },
  });
}
