/**
 * Videos and audio through ffprobe/ffmpeg (see ffmpeg.ts for how the tools are run).
 *
 * - **Size after rotation.** Phones record landscape sensor frames plus a display matrix; a rotation of
 *   ±90° swaps width and height, so an upright phone video reports its upright size.
 * - **Duration we trust.** A container header can lie (a truncated Matroska file keeps its header's
 *   duration; a hostile one can claim anything), so the figure is checked against the data: ffprobe
 *   seeks to one second before the claimed end and reads the remaining packets; the end of the last
 *   packet (minus the start time) is what the data supports. When it and the header agree within
 *   max(1 s, 10 %) the header's figure is used (it includes the last frame's display time); otherwise the
 *   packets win and the result carries a warning. With no header figure the packets decide; when the tail
 *   cannot be read (limit, timeout) the header's figure is used.
 * - **Poster frame.** One frame at min(1 s, 10 % of the duration) (fast input seek, one decode), scaled by
 *   ffmpeg straight to the ThumbHash size; if it is nearly black (a fade-in, a title card) one more frame
 *   at half the duration is tried and the brighter one kept. A cover picture (`attached_pic`) is never
 *   taken for the video.
 *
 * @module
 */
import { LimitError, ProbeError } from '../../core/errors.js';
import { type FfprobeResult, type FfprobeStream, ffprobe, frameRgba, lastPacketEnd } from './ffmpeg.js';
import { assertWithinPixelLimit, type ResolvedProbeOptions } from './options.js';
import { thumbhashFromRgba, thumbhashInputSize } from './thumbhash.js';

/** What {@link probeVideo} extracts. */
export interface VideoProbe {
  width: number;
  height: number;
  durationMs: number;
  thumbhash: string;
  warning?: string;
}

/** Mean luma below which a poster frame counts as black (0–255 scale). */
export const DARK_FRAME_LUMA = 16;

/** Longer than any real recording (about 31 years): a header claiming more is treated as saying nothing. */
export const MAX_PLAUSIBLE_DURATION_SECONDS = 1e9;

function seconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && n <= MAX_PLAUSIBLE_DURATION_SECONDS ? n : undefined;
}

/** The first real video stream (not cover art) with a size, if any. */
export function mainVideoStream(result: FfprobeResult): FfprobeStream | undefined {
  return result.streams.find(
    (s) =>
      s.codec_type === 'video' && !s.disposition?.attached_pic && (s.width ?? 0) > 0 && (s.height ?? 0) > 0,
  );
}

/** True when the file has at least one audio stream. */
export function hasAudioStream(result: FfprobeResult): boolean {
  return result.streams.some((s) => s.codec_type === 'audio');
}

/** Rotation in degrees from the display matrix (or the legacy `rotate` tag), 0 when none. */
export function streamRotation(stream: FfprobeStream): number {
  const matrix = stream.side_data_list?.find((d) => typeof d.rotation === 'number');
  if (matrix?.rotation !== undefined) return matrix.rotation;
  const tag = Number(stream.tags?.rotate);
  return Number.isFinite(tag) ? tag : 0;
}

/** Displayed size of a stream: stored size, swapped for a quarter turn. */
export function displayedSize(stream: FfprobeStream): { width: number; height: number } {
  const width = stream.width ?? 0;
  const height = stream.height ?? 0;
  const quarterTurn = Math.abs(Math.round(streamRotation(stream) / 90)) % 2 === 1;
  return quarterTurn ? { width: height, height: width } : { width, height };
}

/** The container's claimed duration in seconds (format first, then the stream). */
export function claimedDurationSeconds(result: FfprobeResult, stream?: FfprobeStream): number | undefined {
  return seconds(result.format.duration) ?? seconds(stream?.duration);
}

async function verifiedDuration(
  path: string,
  result: FfprobeResult,
  stream: FfprobeStream,
  options: ResolvedProbeOptions,
): Promise<{ seconds: number | undefined; warning?: string }> {
  const claimed = claimedDurationSeconds(result, stream);
  const start = seconds(result.format.start_time) ?? seconds(stream.start_time) ?? 0;
  let end: number | undefined;
  try {
    end = await lastPacketEnd(path, claimed === undefined ? 0 : claimed - 1, options);
  } catch (error) {
    // A tail too long to list or too slow to read: fall back to the header's figure.
    if (
      !(error instanceof LimitError) &&
      !(error instanceof ProbeError && error.code !== 'ERR_FFMPEG_MISSING')
    ) {
      throw error;
    }
  }
  const measured = end === undefined ? undefined : Math.max(0, end - start);
  if (measured === undefined) return { seconds: claimed };
  if (claimed === undefined) return { seconds: measured };
  if (Math.abs(claimed - measured) > Math.max(1, 0.1 * Math.max(claimed, measured))) {
    return {
      seconds: measured,
      warning: `the container claims ${claimed.toFixed(3)} s but its packets end at ${measured.toFixed(3)} s; using the packets`,
    };
  }
  // Confirmed by the packets: the header's figure also counts the last frame's display time.
  return { seconds: claimed };
}

function meanLuma(rgba: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < rgba.length; i += 4)
    sum += 0.2126 * rgba[i]! + 0.7152 * rgba[i + 1]! + 0.0722 * rgba[i + 2]!;
  return sum / (rgba.length / 4);
}

/**
 * A ThumbHash of a representative early frame (see the module notes).
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when no frame can be decoded; see also `runTool`.
 */
export async function posterThumbhash(
  path: string,
  stream: FfprobeStream,
  display: { width: number; height: number },
  durationSeconds: number | undefined,
  options: ResolvedProbeOptions,
): Promise<string> {
  const size = thumbhashInputSize(display.width, display.height);
  const index = stream.index ?? 0;
  const duration = durationSeconds ?? 0;
  let best: Uint8Array | undefined;
  let bestLuma = -1;
  const times = [Math.min(1, 0.1 * duration), 0.5 * duration];
  for (const [i, at] of times.entries()) {
    if (i > 0 && (bestLuma >= DARK_FRAME_LUMA || at <= times[0]!)) break;
    let frame = await frameRgba(path, index, at, size.width, size.height, options);
    if (!frame && at > 0 && !best) frame = await frameRgba(path, index, 0, size.width, size.height, options);
    if (!frame) continue;
    const luma = meanLuma(frame);
    if (luma > bestLuma) {
      best = frame;
      bestLuma = luma;
    }
  }
  if (!best) throw new ProbeError('ffmpeg decoded no frame of the video stream');
  return thumbhashFromRgba(size.width, size.height, best);
}

/**
 * Probes a video: displayed size, verified duration, poster-frame ThumbHash. Resolves with undefined when
 * the file has no video stream (e.g. an MP4 holding only audio).
 *
 * @throws {ProbeError} `ERR_FFMPEG_MISSING` without ffprobe/ffmpeg; `ERR_PROBE_FAILED`/`ERR_PROBE_TIMEOUT`
 *   when the tools fail on this file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when an output limit is hit.
 */
export async function probeVideo(
  path: string,
  options: ResolvedProbeOptions,
  probed?: FfprobeResult,
): Promise<VideoProbe | undefined> {
  const result = probed ?? (await ffprobe(path, options));
  const stream = mainVideoStream(result);
  if (!stream) return undefined;
  const display = displayedSize(stream);
  // The tail read and the poster frame are independent child processes: run them side by side. The
  // poster's seek uses the header's figure; a seek past the real end falls back to the first frame.
  // allSettled, not all: when one fails we still wait for the other child to end, so none outlives us.
  const [durationResult, posterResult] = await Promise.allSettled([
    verifiedDuration(path, result, stream, options),
    posterThumbhash(path, stream, display, claimedDurationSeconds(result, stream), options),
  ]);
  if (durationResult.status === 'rejected') throw durationResult.reason;
  if (posterResult.status === 'rejected') throw posterResult.reason;
  const duration = durationResult.value;
  const thumbhash = posterResult.value;
  if (duration.seconds === undefined)
    throw new ProbeError('neither the container nor its packets give a duration');
  return {
    width: display.width,
    height: display.height,
    durationMs: Math.round(duration.seconds * 1000),
    thumbhash,
    ...(duration.warning ? { warning: duration.warning } : {}),
  };
}

/**
 * Probes a single picture through ffmpeg (for formats sharp cannot decode: BMP, ICO, PSD, JPEG XL, AVIF
 * image sequences): size and ThumbHash of the first frame.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above `maxInputPixels` (checked before decoding).
 * @throws {ProbeError} as {@link probeVideo}, or when the file has no picture.
 */
export async function probePictureWithFfmpeg(
  path: string,
  options: ResolvedProbeOptions,
): Promise<{ width: number; height: number; thumbhash: string }> {
  const result = await ffprobe(path, options);
  const stream = result.streams.find(
    (s) => s.codec_type === 'video' && (s.width ?? 0) > 0 && (s.height ?? 0) > 0,
  );
  if (!stream) throw new ProbeError('ffprobe found no picture in the file');
  const display = displayedSize(stream);
  assertWithinPixelLimit(display.width, display.height, options.maxInputPixels, 'the image');
  const size = thumbhashInputSize(display.width, display.height);
  const frame = await frameRgba(path, stream.index ?? 0, 0, size.width, size.height, options);
  if (!frame) throw new ProbeError('ffmpeg decoded no frame of the picture');
  return { ...display, thumbhash: thumbhashFromRgba(size.width, size.height, frame) };
}

/** The container's duration in whole milliseconds (header only: cheap), if it states one. */
export function audioDurationMs(result: FfprobeResult): number | undefined {
  const claimed = claimedDurationSeconds(
    result,
    result.streams.find((s) => s.codec_type === 'audio'),
  );
  return claimed === undefined ? undefined : Math.round(claimed * 1000);
}
