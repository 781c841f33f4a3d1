/**
 * Videos and audio through ffprobe/ffmpeg (see ffmpeg.ts for how the tools are run).
 *
 * - **Size after rotation.** Phones record landscape sensor frames plus a display matrix; a rotation of
 *   ±90° swaps width and height, so an upright phone video reports its upright size.
 * - **Duration we trust.** A container header can lie (a truncated Matroska file keeps its header's
 *   duration; a hostile one can claim anything), so the figure is checked against the data: the header
 *   ffprobe also seeks past the end (landing on the last keyframe) and lists the remaining packets (when
 *   it lists none, a second ffprobe seeks to one second before the claimed end); the end of the last
 *   packet (minus the start time) is what the data supports. When it and the header agree within
 *   max(1 s, 10 %) the header's figure is used (it includes the last frame's display time); otherwise the
 *   packets win and the result carries a warning. With no header figure the packets decide; when the tail
 *   cannot be read (limit, timeout) the header's figure is used.
 * - **Poster frame.** The first frame, scaled by ffmpeg straight to the ThumbHash size; if it is nearly
 *   black (a fade-in, a title card) one more frame at half the duration (fast input seek) is tried and the
 *   brighter one kept. A cover picture (`attached_pic`) is never taken for the video. The first frame,
 *   not one at 1 s: with a keyframe only at 0 (common for short clips) a frame at 1 s means decoding a
 *   whole second of video first.
 * - **Poster started early.** ffmpeg's frame takes longer than ffprobe, so the first frame is started at
 *   the same time as ffprobe ({@link startEarlyPoster}), before we know the video's stream or size: ffmpeg
 *   picks the first non-cover video stream and sizes the frame itself (see `earlyFrameRgba`). It is used
 *   only when ffprobe's answer confirms it is exactly the frame the rules above ask for (same stream, same
 *   size); otherwise, or when it failed, it is killed and the frame is decoded again after ffprobe, as it
 *   would have been without the head start.
 *
 * @module
 */
import { LimitError, ProbeError } from '../../core/errors.js';
import { thumbhashFromRgba, thumbhashInputSize } from '../../core/media/thumbhash.js';
import {
  earlyFrameRgba,
  type FfprobeResult,
  type FfprobeStream,
  ffprobe,
  frameRgba,
  lastPacketEnd,
  type SizedFrame,
} from './ffmpeg.js';
import { assertWithinPixelLimit, type ResolvedProbeOptions } from './options.js';

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

/**
 * ffprobe's header answer with the file's tail listed by the same process (`tailEnd`, for the duration
 * check). When that run fails (a tail too long for the output limit, a seek the demuxer refuses) the
 * plain header probe runs instead, and its errors are the ones reported; the tail is then read apart.
 *
 * @throws {ProbeError} / {LimitError} as {@link ffprobe}.
 */
export async function ffprobeWithTail(path: string, options: ResolvedProbeOptions): Promise<FfprobeResult> {
  try {
    return await ffprobe(path, options, true);
  } catch (error) {
    if (error instanceof LimitError || (error instanceof ProbeError && error.code === 'ERR_PROBE_FAILED'))
      return ffprobe(path, options);
    throw error;
  }
}

async function verifiedDuration(
  path: string,
  result: FfprobeResult,
  stream: FfprobeStream,
  options: ResolvedProbeOptions,
): Promise<{ seconds: number | undefined; warning?: string }> {
  const claimed = claimedDurationSeconds(result, stream);
  const start = seconds(result.format.start_time) ?? seconds(stream.start_time) ?? 0;
  // The header probe usually listed the tail already (ffprobeWithTail); read it separately only when not.
  let end = result.tailEnd;
  try {
    end ??= await lastPacketEnd(path, claimed === undefined ? 0 : claimed - 1, options);
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

/** A poster frame decoding while ffprobe runs (see {@link startEarlyPoster}). */
export interface EarlyPoster {
  /** The frame, or undefined when ffmpeg failed or gave none (never rejects). */
  frame: Promise<SizedFrame | undefined>;
  /** Kills the ffmpeg child if it still runs and resolves once it has exited. */
  cancel(): Promise<void>;
}

/**
 * Starts decoding the first frame before ffprobe has answered, so the two child
 * processes run side by side. Its errors are swallowed: when the frame is missing or does not fit,
 * {@link probeVideo} decodes it again and reports that run's errors. Call `cancel()` on every path
 * (a `finally`), so the child never outlives the probe.
 */
export function startEarlyPoster(path: string, options: ResolvedProbeOptions): EarlyPoster {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const frame = earlyFrameRgba(path, 0, { ...options, signal: controller.signal })
    .catch(() => undefined)
    .finally(() => options.signal?.removeEventListener('abort', onAbort));
  return {
    frame,
    cancel: async () => {
      controller.abort();
      await frame;
    },
  };
}

/** The early frame when ffprobe's answer confirms it is the first poster frame we would decode now. */
async function confirmedEarlyFrame(
  early: EarlyPoster | undefined,
  result: FfprobeResult,
  stream: FfprobeStream,
  display: { width: number; height: number },
): Promise<Uint8Array | undefined> {
  if (!early) return undefined;
  // ffmpeg's `0:V:0`: the first video stream that is not cover art or a thumbnail track.
  const ffmpegChoice = result.streams.find(
    (s) => s.codec_type === 'video' && !s.disposition?.attached_pic && !s.disposition?.timed_thumbnails,
  );
  if (ffmpegChoice?.index === undefined || ffmpegChoice.index !== stream.index) {
    // Not the frame we need: stop decoding it (the caller still awaits its exit).
    void early.cancel();
    return undefined;
  }
  const frame = await early.frame;
  const size = thumbhashInputSize(display.width, display.height);
  return frame && frame.width === size.width && frame.height === size.height ? frame.rgba : undefined;
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
  firstFrame?: Uint8Array,
): Promise<string> {
  const size = thumbhashInputSize(display.width, display.height);
  const index = stream.index ?? 0;
  const duration = durationSeconds ?? 0;
  let best: Uint8Array | undefined;
  let bestLuma = -1;
  const times = [0, 0.5 * duration];
  for (const [i, at] of times.entries()) {
    if (i > 0 && (bestLuma >= DARK_FRAME_LUMA || at <= times[0]!)) break;
    let frame: Uint8Array | undefined;
    try {
      frame =
        i === 0 && firstFrame
          ? firstFrame
          : await frameRgba(path, index, at, size.width, size.height, options);
    } catch (error) {
      // A later frame costs more (a seek decodes from the keyframe before it, within the tool's memory
      // limit); failing there keeps the dark first frame rather than losing the poster.
      if (
        best &&
        (error instanceof LimitError || (error instanceof ProbeError && error.code !== 'ERR_FFMPEG_MISSING'))
      )
        break;
      throw error;
    }
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
 * the file has no video stream (e.g. an MP4 holding only audio). `probed` is ffprobe's answer when the
 * caller already has it; `early` a poster frame started beside that ffprobe (the caller cancels it).
 *
 * @throws {ProbeError} `ERR_FFMPEG_MISSING` without ffprobe/ffmpeg; `ERR_PROBE_FAILED`/`ERR_PROBE_TIMEOUT`
 *   when the tools fail on this file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when an output limit is hit.
 */
export async function probeVideo(
  path: string,
  options: ResolvedProbeOptions,
  probed?: FfprobeResult,
  early?: EarlyPoster,
): Promise<VideoProbe | undefined> {
  const result = probed ?? (await ffprobe(path, options));
  const stream = mainVideoStream(result);
  if (!stream) return undefined;
  const display = displayedSize(stream);
  const claimed = claimedDurationSeconds(result, stream);
  // The tail read and the poster frame are independent child processes: run them side by side. The
  // poster's seek uses the header's figure; a seek past the real end falls back to the first frame.
  // allSettled, not all: when one fails we still wait for the other child to end, so none outlives us.
  const [durationResult, posterResult] = await Promise.allSettled([
    verifiedDuration(path, result, stream, options),
    confirmedEarlyFrame(early, result, stream, display).then((first) =>
      posterThumbhash(path, stream, display, claimed, options, first),
    ),
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
