/**
 * Probe options and their defaults: every limit is named, with its unit.
 *
 * @module
 */
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { InvalidArgumentError, LimitError } from '../../core/errors.js';
import { checkedTimeoutMs } from '../../core/timeout.js';
import { heifDecoderBinary, locateBinary, type ToolName } from './ffmpeg-binaries.js';

/** Options of {@link probeMedia} and the lower-level probes. All limits are optional. */
export interface ProbeOptions {
  /**
   * Largest image to decode, in pixels (width × height of the stored image). Larger images are sent as
   * a plain `file` with a warning. Default 16383 × 16383 (sharp's own limit).
   */
  maxInputPixels?: number;
  /** Wall-clock limit of each ffprobe/ffmpeg child process, in milliseconds. Default 15 000. */
  probeTimeoutMs?: number;
  /** Most bytes read from a child's stdout (and stderr) before it is killed. Default 4 MiB. */
  maxProbeOutputBytes?: number;
  /**
   * Data memory each ffprobe/ffmpeg child may use, in bytes (`ulimit -d` on Linux and macOS): a file
   * that needs more to decode (e.g. a 64-byte BMP claiming 16000×16000 pixels) is sent as a `file` with
   * an `ERR_LIMIT_EXCEEDED` warning instead of costing gigabytes. Default 640 MiB.
   */
  maxToolMemoryBytes?: number;
  /** Largest SVG read into memory for rasterising, in bytes. Default 8 MiB. */
  maxSvgBytes?: number;
  /** Largest HEIC/HEIF file decoded in memory (libheif wasm), in bytes. Default 64 MiB. */
  maxHeicBytes?: number;
  /**
   * ffprobe binary. Default: env `FFPROBE_PATH`, else `ffprobe` on the `PATH`, else the one bundled by
   * the optional dependency `@ffprobe-installer/ffprobe` (see ffmpeg-binaries.ts).
   */
  ffprobePath?: string;
  /**
   * ffmpeg binary. Default: env `FFMPEG_PATH`, else `ffmpeg` on the `PATH`, else the one bundled by the
   * optional dependency `@ffmpeg-installer/ffmpeg`.
   */
  ffmpegPath?: string;
  /**
   * The system HEIF decoder (libheif's `heif-dec`, or `heif-convert` before libheif 1.17), used for a
   * HEIC without a thumbnail item; `false` for none (libheif in WebAssembly only). Default: env
   * `HEIF_DEC_PATH`, else `heif-dec` or `heif-convert` on the `PATH`, else none.
   */
  heifDecPath?: string | false;
  /** Cancels the probe: children are killed, temp files removed, and the promise rejects with `ERR_ABORTED`. */
  signal?: AbortSignal;
}

/** Default pixel limit: 16383 × 16383, the same as sharp's own default (covers 200 MP camera modes). */
export const DEFAULT_MAX_INPUT_PIXELS = 16383 * 16383;
/**
 * Refuses a picture above the pixel limit, from the size its header states, before anything decodes it
 * (sharp, libheif and ffmpeg all report the size without decoding).
 *
 * @param what - what the size belongs to, for the message: `'the image'`, `'the HEIF image'`.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when `width × height` is above `maxInputPixels`.
 */
export function assertWithinPixelLimit(
  width: number,
  height: number,
  maxInputPixels: number,
  what: string,
): void {
  if (width * height > maxInputPixels) {
    throw new LimitError(
      `expected at most ${maxInputPixels} pixels (maxInputPixels) but ${what} has ${width}×${height}; raise maxInputPixels to decode it`,
    );
  }
}

/** Default per-process timeout, in milliseconds. */
export const DEFAULT_PROBE_TIMEOUT_MS = 15_000;
/**
 * Default data-memory limit of each ffprobe/ffmpeg child: 640 MiB. The largest real need measured is
 * the first frame of an 8K 10-bit HEVC video (one decoding thread): 464 MiB with Debian's ffmpeg 5.1,
 * under 256 MiB with the bundled static build. A 56-byte BMP claiming 16000×16000 RGB pixels (within
 * the pixel limit) drove ffprobe and ffmpeg to ~800 MB each; under this limit its allocation fails.
 */
export const DEFAULT_MAX_TOOL_MEMORY_BYTES = 640 * 1024 * 1024;
/** Default cap on a child's output, in bytes. */
export const DEFAULT_MAX_PROBE_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Default cap on an SVG's size, in bytes. */
export const DEFAULT_MAX_SVG_BYTES = 8 * 1024 * 1024;
/** Default cap on a HEIC/HEIF file decoded in memory, in bytes. */
export const DEFAULT_MAX_HEIC_BYTES = 64 * 1024 * 1024;

/** {@link ProbeOptions} with every default filled in. */
export interface ResolvedProbeOptions {
  maxInputPixels: number;
  probeTimeoutMs: number;
  maxProbeOutputBytes: number;
  maxToolMemoryBytes: number;
  maxSvgBytes: number;
  maxHeicBytes: number;
  ffprobePath: string;
  ffmpegPath: string;
  /** The system HEIF decoder, or undefined for none. */
  heifDecPath: string | undefined;
  signal: AbortSignal | undefined;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  assertNonNegativeInteger(value, name);
  if (value === 0)
    throw new InvalidArgumentError(`expected a positive integer for \`${name}\` but received 0`);
  return value;
}

function binary(value: string | undefined, name: string, tool: ToolName): string {
  const chosen = value === undefined ? locateBinary(tool).path : value;
  if (typeof chosen !== 'string' || chosen.length === 0 || chosen.includes('\0')) {
    throw new InvalidArgumentError(`expected a non-empty path for \`${name}\` but received ${typeof chosen}`);
  }
  return chosen;
}

function heifDecoder(value: string | false | undefined): string | undefined {
  if (
    value !== undefined &&
    value !== false &&
    (typeof value !== 'string' || value === '' || value.includes('\0'))
  ) {
    throw new InvalidArgumentError(
      `expected a path or false for \`heifDecPath\` but received ${typeof value === 'string' ? 'an empty or NUL-containing string' : typeof value}`,
    );
  }
  return heifDecoderBinary(value);
}

/**
 * Checks the options and fills in the defaults.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a limit is not a positive integer.
 */
export function resolveProbeOptions(options: ProbeOptions = {}): ResolvedProbeOptions {
  return {
    maxInputPixels: positive(options.maxInputPixels, 'maxInputPixels', DEFAULT_MAX_INPUT_PIXELS),
    // A timer cannot wait past 2^31 − 1 ms: larger values are clamped (they fired after 1 ms).
    probeTimeoutMs: checkedTimeoutMs(
      positive(options.probeTimeoutMs, 'probeTimeoutMs', DEFAULT_PROBE_TIMEOUT_MS),
      'probeTimeoutMs',
    ),
    maxProbeOutputBytes: positive(
      options.maxProbeOutputBytes,
      'maxProbeOutputBytes',
      DEFAULT_MAX_PROBE_OUTPUT_BYTES,
    ),
    maxToolMemoryBytes: positive(
      options.maxToolMemoryBytes,
      'maxToolMemoryBytes',
      DEFAULT_MAX_TOOL_MEMORY_BYTES,
    ),
    maxSvgBytes: positive(options.maxSvgBytes, 'maxSvgBytes', DEFAULT_MAX_SVG_BYTES),
    maxHeicBytes: positive(options.maxHeicBytes, 'maxHeicBytes', DEFAULT_MAX_HEIC_BYTES),
    ffprobePath: binary(options.ffprobePath, 'ffprobePath', 'ffprobe'),
    ffmpegPath: binary(options.ffmpegPath, 'ffmpegPath', 'ffmpeg'),
    heifDecPath: heifDecoder(options.heifDecPath),
    signal: options.signal,
  };
}
