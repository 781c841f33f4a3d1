/**
 * `probeMedia`: what a file becomes in a Happy message (`photo`, `video` or `file`), from its content.
 *
 * Order of work: MIME by content (mime.ts) → for images sharp (image.ts), libheif for HEIC (heic.ts) or
 * ffmpeg for what sharp cannot read → for videos ffprobe/ffmpeg (video.ts) → everything else a `file`.
 * Content that claims to be an image or video but cannot be decoded, or that hits a limit, becomes a
 * `file` with a `warning` (it can still be sent); an unreadable path, a missing ffmpeg for a video, and
 * an abort are errors.
 *
 * @module
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  AbortedError,
  type HappyMediaError,
  InvalidArgumentError,
  LimitError,
  MissingDependencyError,
  ProbeError,
} from '../../core/errors.js';
import { sanitizeFileName } from '../../core/media/file-name.js';
import { unreadableInput } from '../../core/unreadable-input.js';
import { spoolToPrivateFile } from '../fs/spool.js';
import { readFailureReason, statInputFile } from '../fs/unreadable-input.js';
import { ffprobe } from './ffmpeg.js';
import { HEIF_STILL_TYPES, probeAvifThumbnail, probeHeic } from './heic.js';
import { probeImage, sharpDecodes } from './image.js';
import { id3AudioStart, OCTET_STREAM, sniffMimeType } from './mime.js';
import { type ProbeOptions, type ResolvedProbeOptions, resolveProbeOptions } from './options.js';
import type { MediaProbe, ProbeStreamInput } from './types.js';
import {
  audioDurationMs,
  type EarlyPoster,
  ffprobeWithTail,
  hasAudioStream,
  probePictureWithFfmpeg,
  probeVideo,
  startEarlyPoster,
} from './video.js';

/** A container's video MIME type → its audio-only name, for a "video" file that holds only sound. */
export const AUDIO_ONLY_TYPES: Readonly<Record<string, string>> = {
  'video/mp4': 'audio/mp4',
  'video/webm': 'audio/webm',
  'video/matroska': 'audio/matroska',
  'video/ogg': 'audio/ogg',
  'video/3gpp': 'audio/3gpp',
  'video/3gpp2': 'audio/3gpp2',
};

/** Image types sharp lists but may fail on where ffmpeg succeeds (AVIF image sequences). */
const FFMPEG_RETRY_AFTER_SHARP = new Set(['image/avif']);

/** Errors that mean "this content cannot be what it claims": the file is still sent, as a `file`. */
function degradable(error: unknown): error is HappyMediaError {
  if (error instanceof LimitError) return true;
  return (
    error instanceof ProbeError && (error.code === 'ERR_PROBE_FAILED' || error.code === 'ERR_PROBE_TIMEOUT')
  );
}

function reason(error: HappyMediaError): string {
  return `${error.code}: ${error.message}`;
}

async function probePhoto(
  path: string,
  mimeType: string,
  options: ResolvedProbeOptions,
): Promise<Pick<MediaProbe, 'width' | 'height' | 'thumbhash' | 'warning'> | { failed: string }> {
  const limits = { maxInputPixels: options.maxInputPixels, maxSvgBytes: options.maxSvgBytes };
  const viaFfmpeg = async (before?: string) => {
    try {
      return await probePictureWithFfmpeg(path, options);
    } catch (error) {
      if (error instanceof ProbeError && error.code === 'ERR_FFMPEG_MISSING') {
        return {
          failed: `${before ? `${before}; ` : ''}decoding ${mimeType} needs ffmpeg: ${reason(error)}`,
        };
      }
      if (!degradable(error)) throw error;
      return { failed: `${before ? `${before}; ` : ''}${reason(error)}` };
    }
  };
  if (sharpDecodes(mimeType)) {
    try {
      // An AVIF with a thumbnail item is hashed from it, as a HEIC is (heic.ts); sharp decodes the rest.
      const fromThumbnail = mimeType === 'image/avif' ? await probeAvifThumbnail(path, options) : undefined;
      return fromThumbnail ?? (await probeImage(path, mimeType === 'image/svg+xml', limits));
    } catch (error) {
      if (!degradable(error)) throw error;
      if (error instanceof ProbeError && FFMPEG_RETRY_AFTER_SHARP.has(mimeType))
        return viaFfmpeg(reason(error));
      return { failed: reason(error) };
    }
  }
  if (HEIF_STILL_TYPES.has(mimeType)) {
    try {
      return await probeHeic(path, options);
    } catch (error) {
      if (!degradable(error)) throw error;
      if (error instanceof LimitError) return { failed: reason(error) };
      // A HEIF holding AV1 (an AVIF by another brand) is beyond this libheif build but within sharp's.
      try {
        return await probeImage(path, false, limits);
      } catch (second) {
        if (!degradable(second)) throw second;
        return { failed: `${reason(error)}; ${reason(second)}` };
      }
    }
  }
  return viaFfmpeg();
}

async function probeAv(
  path: string,
  mimeType: string,
  options: ResolvedProbeOptions,
): Promise<Omit<MediaProbe, 'size' | 'name'>> {
  const isVideo = mimeType.startsWith('video/');
  // The poster frame's ffmpeg is the slowest child: start it now, beside ffprobe (see video.ts).
  const early = isVideo ? startEarlyPoster(path, options) : undefined;
  try {
    return await probeAvAfterStart(path, mimeType, options, early);
  } finally {
    // Kill it when unused (an error, no video stream) and wait for it to exit: no child outlives us.
    await early?.cancel();
  }
}

async function probeAvAfterStart(
  path: string,
  mimeType: string,
  options: ResolvedProbeOptions,
  early: EarlyPoster | undefined,
): Promise<Omit<MediaProbe, 'size' | 'name'>> {
  const isVideo = mimeType.startsWith('video/');
  let result: Awaited<ReturnType<typeof ffprobe>>;
  try {
    result = isVideo ? await ffprobeWithTail(path, options) : await ffprobe(path, options);
  } catch (error) {
    // Audio files are plain files: without ffprobe they simply have no duration.
    if (!isVideo && error instanceof ProbeError && error.code === 'ERR_FFMPEG_MISSING') {
      return { kind: 'file', mimeType, warning: `duration unknown: ${reason(error)}` };
    }
    if (!degradable(error)) throw error;
    return {
      kind: 'file',
      mimeType,
      warning: `could not read the ${isVideo ? 'video' : 'audio'}: ${reason(error)}`,
    };
  }
  if (isVideo) {
    try {
      const video = await probeVideo(path, options, result, early);
      if (video) return { kind: 'video', mimeType, ...video };
    } catch (error) {
      if (!degradable(error)) throw error;
      return { kind: 'file', mimeType, warning: `could not decode the video: ${reason(error)}` };
    }
  }
  if (!hasAudioStream(result)) {
    return { kind: 'file', mimeType, warning: 'the file has no decodable video or audio stream' };
  }
  const durationMs = audioDurationMs(result);
  return {
    kind: 'file',
    mimeType: AUDIO_ONLY_TYPES[mimeType] ?? mimeType,
    ...(durationMs !== undefined ? { durationMs } : {}),
  };
}

/** ffprobe's `format_name` for audio that may sit behind an ID3v2 tag → our MIME type. */
const ID3_AUDIO_FORMATS: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  ac3: 'audio/ac3',
  eac3: 'audio/eac3',
};

/**
 * An ID3v2-tagged file that content sniffing gave up on (the tag is followed by zero padding, and
 * file-type looks for a frame right after the tag): ffprobe reads it from the first byte after the
 * padding (which also gives a CBR file its true duration: counted from the whole file, 70 KB of zeros
 * made a 2 s MP3 last 10.8 s). Undefined when ffprobe finds no known audio there or cannot run.
 */
async function probeId3Audio(
  path: string,
  options: ResolvedProbeOptions,
): Promise<Pick<MediaProbe, 'kind' | 'mimeType' | 'durationMs'> | undefined> {
  const start = await id3AudioStart(path);
  if (start === undefined) return undefined;
  let result: Awaited<ReturnType<typeof ffprobe>>;
  try {
    result = await ffprobe(path, options, false, start);
  } catch (error) {
    if (degradable(error) || (error instanceof ProbeError && error.code === 'ERR_FFMPEG_MISSING'))
      return undefined;
    throw error;
  }
  const mimeType = ID3_AUDIO_FORMATS[result.format.format_name ?? ''];
  if (mimeType === undefined || !hasAudioStream(result)) return undefined;
  const durationMs = audioDurationMs(result);
  return { kind: 'file', mimeType, ...(durationMs !== undefined ? { durationMs } : {}) };
}

async function probePath(path: string, name: string, options: ResolvedProbeOptions): Promise<MediaProbe> {
  let size: number;
  let mimeType: string;
  const info = await statInputFile(path);
  try {
    await access(path, constants.R_OK);
    size = info.size;
    mimeType = await sniffMimeType(path, name);
  } catch (error) {
    if (error instanceof ProbeError || error instanceof MissingDependencyError) throw error;
    throw unreadableInput(path, readFailureReason(error), error);
  }
  const base = { size, name };
  if (mimeType === OCTET_STREAM) {
    const audio = await probeId3Audio(path, options);
    if (audio) return { ...audio, ...base };
  }
  if (mimeType.startsWith('image/')) {
    const photo = await probePhoto(path, mimeType, options);
    if ('failed' in photo)
      return { kind: 'file', mimeType, ...base, warning: `not sent as a photo: ${photo.failed}` };
    return { kind: 'photo', mimeType, ...base, ...photo };
  }
  if (mimeType.startsWith('video/') || mimeType.startsWith('audio/')) {
    const av = await probeAv(path, mimeType, options);
    return { ...av, kind: av.kind, mimeType: av.mimeType, ...base };
  }
  return { kind: 'file', mimeType, ...base };
}

function ordered(probe: MediaProbe): MediaProbe {
  // A stable key order makes the CLI's JSON lines easy to read and diff.
  const out: MediaProbe = { kind: probe.kind, mimeType: probe.mimeType, size: probe.size, name: probe.name };
  if (probe.width !== undefined) out.width = probe.width;
  if (probe.height !== undefined) out.height = probe.height;
  if (probe.durationMs !== undefined) out.durationMs = probe.durationMs;
  if (probe.thumbhash !== undefined) out.thumbhash = probe.thumbhash;
  if (probe.warning !== undefined) out.warning = probe.warning;
  return out;
}

/**
 * Probes a file or a stream for a Happy message: kind, MIME type by content, size, sanitised name, and
 * for photos and videos the displayed size and a ThumbHash (videos also `durationMs`; audio files a
 * duration where the header gives one). A stream is spooled to a private temp file (0600 in a 0700
 * directory) that is deleted before this returns.
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when the path cannot be read (missing, a directory, no
 *   permission); `ERR_FFMPEG_MISSING` when a video needs ffprobe/ffmpeg and they cannot be found.
 * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts (children killed, temp files gone).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for bad options or a stream of the wrong size.
 * @throws {MissingDependencyError} `ERR_DEPENDENCY_MISSING` when a package this file needs (file-type,
 *   sharp, libheif-js: optional peers of happy-media) is not installed.
 * @example
 * ```ts
 * const probe = await probeMedia('IMG_0001.HEIC');
 * // { kind: 'photo', mimeType: 'image/heic', size: 1313423, name: 'IMG_0001.HEIC', width: 3024, height: 4032, thumbhash: '…' }
 * const clip = await probeMedia({ stream: response.body!, name: 'clip.mp4', size: 1048576 });
 * ```
 */
export async function probeMedia(
  input: string | ProbeStreamInput,
  options: ProbeOptions = {},
): Promise<MediaProbe> {
  const resolved = resolveProbeOptions(options);
  if (resolved.signal?.aborted) throw new AbortedError();
  if (typeof input === 'string') {
    if (input.length === 0 || input.includes('\0')) {
      throw new InvalidArgumentError(
        'expected a file path for `input` but received an empty or NUL-containing string',
      );
    }
    return ordered(await probePath(input, sanitizeFileName(basename(input)), resolved));
  }
  if (input === null || typeof input !== 'object' || !('stream' in input) || typeof input.name !== 'string') {
    throw new InvalidArgumentError('expected a path or `{ stream, name, size? }` for `input`');
  }
  const spooled = await spoolToPrivateFile(input.stream, {
    expectedSize: input.size,
    signal: resolved.signal,
  });
  try {
    return ordered(await probePath(spooled.path, sanitizeFileName(input.name), resolved));
  } finally {
    await spooled.cleanup();
  }
}
