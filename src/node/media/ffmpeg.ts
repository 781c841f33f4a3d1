/**
 * Everything we ask of ffprobe and ffmpeg, in one module.
 *
 * **Why a direct `spawn` and not fluent-ffmpeg.** fluent-ffmpeg behind one module of ours
 * was the first plan. fluent-ffmpeg 2.1.3 is deprecated and its repository archived (May 2025); its `ffprobe()` has no
 * timeout and buffers all of stdout with no limit, and its command builder adds nothing we need for two
 * fixed command lines. ../shared/MEASURED.md (the machine measurements) found a direct spawn costs the same. So this module spawns the tools
 * itself, and it is the only place that does: replacing it (or going back to a wrapper) touches nothing
 * else.
 *
 * Every child process here:
 * - gets an argument array (no shell), with the input as `file:<absolute path>`, so a file named `-i`,
 *   `;rm -rf ~` or `http://x` is just a file name;
 * - may only open local files (`-protocol_whitelist file`) through a fixed list of demuxers
 *   (`-format_whitelist`: no playlists, no concat lists, no image-sequence patterns, so a hostile file
 *   cannot make ffmpeg read other files or the network);
 * - is killed (SIGKILL) at `probeTimeoutMs` or when its output passes `maxProbeOutputBytes`, or on abort,
 *   and our promise settles only after the process has exited, so nothing is left running;
 * - reports a missing binary as one `ERR_FFMPEG_MISSING` error saying how to install or point at one.
 *
 * Which binary runs (option → env → PATH → the bundled npm package) is decided in ffmpeg-binaries.ts.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { AbortedError, DiskError, LimitError, ProbeError } from '../../core/errors.js';
import { THUMBHASH_MAX_SIDE } from '../../core/media/thumbhash.js';
import { killChild, spawnChild } from '../process/child-processes.js';
import {
  BINARY_ENV,
  type BinarySource,
  BUNDLED_PACKAGE,
  bundledBinary,
  locateBinary,
  type ToolName,
} from './ffmpeg-binaries.js';
import { type ProbeOptions, type ResolvedProbeOptions, resolveProbeOptions } from './options.js';

/** Demuxers ffprobe/ffmpeg may use on untrusted input (containers, audio, single images). */
export const DEMUXER_WHITELIST = [
  'mov,mp4,m4a,3gp,3g2,mj2',
  'matroska,webm',
  'avi',
  'asf',
  'flv',
  'mpeg',
  'mpegts',
  'mpegvideo',
  'm4v',
  'h264',
  'hevc',
  'h263',
  'ivf',
  'obu',
  'nut',
  'rm',
  'ogg',
  'mp3',
  'aac',
  'ac3',
  'eac3',
  'dts',
  'truehd',
  'mlp',
  'flac',
  'wav',
  'w64',
  'aiff',
  'amr',
  'amrnb',
  'amrwb',
  'caf',
  'ape',
  'wv',
  'tta',
  'mpc',
  'dsf',
  'gif',
  'apng',
  'mjpeg',
  'bmp_pipe',
  'ico',
  'psd_pipe',
  'jpegxl_pipe',
  'png_pipe',
  'jpeg_pipe',
  'webp_pipe',
  'tiff_pipe',
  'j2k_pipe',
].join(',');

/** Options of one child process run. */
export interface RunToolOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  /** Data memory the child may use (`ulimit -d`), in bytes; unlimited when omitted. */
  maxMemoryBytes?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Text (the input argument) replaced by `<input>` in error messages, to keep them short and path-free. */
  redact?: string | undefined;
}

export type { ToolName } from './ffmpeg-binaries.js';

/** A tool {@link runTool} starts: ffprobe, ffmpeg, or the system HEIF decoder (heif-dec.ts). */
export type ChildTool = ToolName | 'heif-dec';

/** The one message for a missing binary (with why the bundled one is not there, when it is not). */
export function ffmpegMissingMessage(tool: ToolName, binary: string): string {
  const env = BINARY_ENV[tool];
  const other = BINARY_ENV[tool === 'ffprobe' ? 'ffmpeg' : 'ffprobe'];
  const bundled = bundledBinary(tool).problem;
  return (
    `${tool} was not found or cannot be run (tried "${binary}"); video probing needs ffmpeg and ffprobe` +
    `${bundled ? ` (${bundled})` : ''}: install happy-media-cli (it brings them) or add ` +
    `${BUNDLED_PACKAGE.ffmpeg} and ${BUNDLED_PACKAGE.ffprobe} beside happy-media, ` +
    `install them (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg) ` +
    `or point at the binaries with ${env} (and ${other}) or the ffmpegPath/ffprobePath options`
  );
}

/** What ffmpeg and ffprobe print when an allocation failed (under `ulimit -d`, or a real shortage). */
const OUT_OF_MEMORY = /Cannot allocate memory|out of memory|ENOMEM/i;

/** A child that could not be started: `ERR_FFMPEG_MISSING` when ffmpeg or ffprobe is missing or not executable. */
function missingBinary(tool: ChildTool, binary: string, error: unknown): ProbeError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (tool !== 'heif-dec' && (code === 'ENOENT' || code === 'EACCES' || error instanceof DiskError)) {
    return new ProbeError(ffmpegMissingMessage(tool, binary), { code: 'ERR_FFMPEG_MISSING', cause: error });
  }
  return new ProbeError(`${tool} could not be run: ${(error as Error).message}`, { cause: error });
}

/** The input argument for a path: absolute, behind the `file:` protocol so it can never read as an option or URL. */
export function inputArgument(path: string): string {
  return `file:${resolve(path)}`;
}

/** How a child ended without success: its status or signal, the tail of its stderr, and whether we killed it. */
interface FailedExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  /** We killed it (timeout, output limit, abort): a SIGKILL is ours, not the system's. */
  killed: boolean;
  /** The CPU limit the child ran under. */
  cpuSeconds: number;
}

/**
 * The error for a child that exited non-zero or died of a signal, its last two lines of stderr as the
 * detail: a `LimitError` when it ran out of its memory, `ERR_PROBE_TIMEOUT` when the system stopped it
 * (its CPU limit, or memory), else `ERR_PROBE_FAILED`.
 */
function exitError(tool: ChildTool, exit: FailedExit, options: RunToolOptions): Error {
  const { code, signal, stderrTail, killed, cpuSeconds } = exit;
  const tail = options.redact ? stderrTail.replaceAll(options.redact, '<input>') : stderrTail;
  const detail = tail.trim().split('\n').slice(-2).join(' | ') || 'no message';
  if (options.maxMemoryBytes !== undefined && OUT_OF_MEMORY.test(tail)) {
    return new LimitError(
      `${tool} needed more than its ${options.maxMemoryBytes} bytes of memory (maxToolMemoryBytes) and failed: ${detail}`,
    );
  }
  if (!killed && (signal === 'SIGKILL' || signal === 'SIGXCPU')) {
    return new ProbeError(
      `${tool} was stopped by the system (${signal}) after its CPU limit of ${cpuSeconds} s (twice probeTimeoutMs) or for lack of memory`,
      { code: 'ERR_PROBE_TIMEOUT' },
    );
  }
  const how = signal ? `crashed (${signal})` : `exited with status ${code}`;
  return new ProbeError(`${tool} ${how}: ${detail}`);
}

/**
 * Runs `binary args…` and resolves with its stdout once it has exited with status 0.
 *
 * @throws {ProbeError} `ERR_FFMPEG_MISSING` when ffmpeg or ffprobe cannot be started (another tool:
 *   `ERR_PROBE_FAILED`); `ERR_PROBE_TIMEOUT` when
 *   it ran past `timeoutMs` (it is killed); `ERR_PROBE_FAILED` on a non-zero exit or a crash (signal).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when it printed more than `maxOutputBytes` (it is killed).
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts (it is killed).
 */
export function runTool(
  tool: ChildTool,
  binary: string,
  args: readonly string[],
  options: RunToolOptions,
): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    if (options.signal?.aborted) {
      reject(new AbortedError());
      return;
    }
    // The child's own CPU limit outlasts our timer (it covers two busy threads for the whole timeout):
    // it matters only when nobody is left to run the timer.
    const cpuSeconds = Math.ceil((2 * options.timeoutMs) / 1000) + 1;
    let child: ChildProcess;
    try {
      child = spawnChild(binary, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        limits: {
          cpuSeconds,
          ...(options.maxMemoryBytes === undefined ? {} : { memoryBytes: options.maxMemoryBytes }),
        },
      });
    } catch (error) {
      reject(missingBinary(tool, binary, error));
      return;
    }
    const stdout = child.stdout as NonNullable<ChildProcess['stdout']>;
    const stderr = child.stderr as NonNullable<ChildProcess['stderr']>;
    const chunks: Buffer[] = [];
    let outBytes = 0;
    let stderrTail = '';
    let failure: Error | undefined;
    let killed = false;

    const kill = (why: Error) => {
      failure ??= why;
      killed = true;
      killChild(child);
    };
    const timer = setTimeout(
      () =>
        kill(
          new ProbeError(
            `${tool} did not finish within ${options.timeoutMs} ms (probeTimeoutMs) and was killed`,
            {
              code: 'ERR_PROBE_TIMEOUT',
            },
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => kill(new AbortedError());
    options.signal?.addEventListener('abort', onAbort, { once: true });

    stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > options.maxOutputBytes) {
        kill(
          new LimitError(
            `${tool} printed more than ${options.maxOutputBytes} bytes (maxProbeOutputBytes) and was killed`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    stderr.on('data', (chunk: Buffer) => {
      // Keep only the tail: the last lines say what went wrong, and stderr must not grow without bound.
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2048);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= missingBinary(tool, binary, error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) {
        reject(failure);
        return;
      }
      if (code !== 0) {
        reject(exitError(tool, { code, signal, stderrTail, killed, cpuSeconds }, options));
        return;
      }
      resolvePromise(Buffer.concat(chunks));
    });
  });
}

/** The parts of `ffprobe -show_format -show_streams` JSON we read. */
export interface FfprobeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  start_time?: string;
  disposition?: { attached_pic?: number; timed_thumbnails?: number };
  tags?: Record<string, string>;
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

/** ffprobe's container section. */
export interface FfprobeFormat {
  format_name?: string;
  duration?: string;
  start_time?: string;
}

/** What {@link ffprobe} returns. */
export interface FfprobeResult {
  streams: FfprobeStream[];
  format: FfprobeFormat;
  /**
   * With `withTail`: end in seconds of the last packet of the file's tail (see {@link ffprobe}); undefined
   * when not asked for or when the tail listed no packet with a timestamp.
   */
  tailEnd?: number;
}

/** The latest `pts + duration` of listed packets, undefined when none has a timestamp. */
function packetsEnd(packets: Iterable<[pts: number, duration: number]>): number | undefined {
  let end: number | undefined;
  for (const [pts, duration] of packets) {
    if (!Number.isFinite(pts)) continue;
    const packetEnd = pts + (Number.isFinite(duration) ? duration : 0);
    if (end === undefined || packetEnd > end) end = packetEnd;
  }
  return end;
}

/**
 * `-read_intervals` from `fromSeconds` to the end of the file. An explicit end (+ a billion seconds: the
 * whole tail): with an open end (`START%`) the static ffprobe bundled for linux-x64 (git 2023-07)
 * sometimes lists no packet at all, depending on where its binary lies on disk and on the environment (an
 * uninitialised read, it seems; the fresh-clone check in .ci/run caught it: durations of 0); the explicit
 * form is read right by every build.
 */
function tailInterval(fromSeconds: number): string[] {
  return ['-read_intervals', `${Math.max(0, fromSeconds).toFixed(3)}%+1000000000`];
}

/**
 * Where the one-process tail read seeks: past any plausible end, so ffprobe lands on the last keyframe
 * (it seeks backwards from the target) and lists the packets from there to the end of the file.
 */
const PAST_THE_END_SECONDS = 1e9;

/**
 * The arguments every probe run starts with. `-threads 1`: one decoding thread, so the memory a decode
 * needs does not grow with the machine's core count (each frame thread holds its own frames; an 8K
 * HEVC frame needed under 256 MiB with one thread, over 512 MiB with 16), and a single frame comes out
 * sooner without frame threading (1080p H.264 first frame: 12 vs 23 ms here).
 */
function baseArgs(): string[] {
  return [
    '-hide_banner',
    '-v',
    'error',
    '-threads',
    '1',
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    DEMUXER_WHITELIST,
  ];
}

/** The limits of one probe child for `path`: time, output, memory, cancellation. */
function toolRun(path: string, maxOutputBytes: number, options: ResolvedProbeOptions): RunToolOptions {
  return {
    timeoutMs: options.probeTimeoutMs,
    maxOutputBytes,
    maxMemoryBytes: options.maxToolMemoryBytes,
    signal: options.signal,
    redact: inputArgument(path),
  };
}

/**
 * Streams and container of a file, as parsed JSON. With `withTail` the same process also lists the packets
 * of the file's tail (from the last keyframe on, see {@link lastPacketEnd}) and returns where they end as
 * `tailEnd`: the duration check without a second process. With `skipInitialBytes` the input starts
 * that far into the file (`-skip_initial_bytes`: past a tag and padding no demuxer looks beyond).
 *
 * @throws {ProbeError} see {@link runTool}; `ERR_PROBE_FAILED` also when the output is not JSON.
 */
export async function ffprobe(
  path: string,
  options: ResolvedProbeOptions,
  withTail = false,
  skipInitialBytes = 0,
): Promise<FfprobeResult> {
  const tail = withTail
    ? [...tailInterval(PAST_THE_END_SECONDS), '-show_entries', 'packet=pts_time,duration_time']
    : [];
  const skip = skipInitialBytes > 0 ? ['-skip_initial_bytes', String(skipInitialBytes)] : [];
  const out = await runTool(
    'ffprobe',
    options.ffprobePath,
    [
      ...baseArgs(),
      '-print_format',
      'json=compact=1',
      '-show_format',
      '-show_streams',
      ...tail,
      ...skip,
      inputArgument(path),
    ],
    toolRun(path, options.maxProbeOutputBytes, options),
  );
  let parsed: Partial<FfprobeResult> & { packets?: { pts_time?: string; duration_time?: string }[] };
  try {
    parsed = JSON.parse(out.toString('utf8')) as typeof parsed;
  } catch (error) {
    throw new ProbeError('ffprobe printed something that is not JSON', { cause: error });
  }
  const result: FfprobeResult = {
    streams: Array.isArray(parsed.streams) ? parsed.streams : [],
    format: parsed.format ?? {},
  };
  if (Array.isArray(parsed.packets)) {
    const tailEnd = packetsEnd(
      parsed.packets.map((p) => [Number(p.pts_time ?? Number.NaN), Number(p.duration_time ?? Number.NaN)]),
    );
    if (tailEnd !== undefined) result.tailEnd = tailEnd;
  }
  return result;
}

/**
 * End time in seconds of the last packet of any stream, read from `fromSeconds` on (ffprobe seeks to the
 * keyframe before it, so only the tail of the file is read); undefined when no packet has a timestamp.
 * This is how a container's duration claim is checked against its data.
 *
 * @throws {ProbeError} see {@link runTool}.
 */
export async function lastPacketEnd(
  path: string,
  fromSeconds: number,
  options: ResolvedProbeOptions,
): Promise<number | undefined> {
  const out = await runTool(
    'ffprobe',
    options.ffprobePath,
    [
      ...baseArgs(),
      ...tailInterval(fromSeconds),
      '-show_entries',
      'packet=pts_time,duration_time',
      '-of',
      'csv=p=0',
      inputArgument(path),
    ],
    toolRun(path, options.maxProbeOutputBytes, options),
  );
  return packetsEnd(
    out
      .toString('utf8')
      .split('\n')
      .map((line) => {
        const [pts, duration] = line.split(',').map(Number);
        return [pts ?? Number.NaN, duration ?? Number.NaN];
      }),
  );
}

/** The argument array that decodes one frame of `map` at `atSeconds` through `filter` to stdout as `output`. */
function oneFrameArgs(
  path: string,
  map: string,
  atSeconds: number,
  filter: string,
  output: readonly string[],
): string[] {
  return [
    ...baseArgs(),
    '-nostdin',
    ...(atSeconds > 0 ? ['-ss', atSeconds.toFixed(3)] : []),
    '-i',
    inputArgument(path),
    '-map',
    map,
    '-frames:v',
    '1',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    filter,
    '-pix_fmt',
    'rgba',
    ...output,
    'pipe:1',
  ];
}

function runFfmpeg(
  path: string,
  args: string[],
  maxOutputBytes: number,
  options: ResolvedProbeOptions,
): Promise<Buffer> {
  return runTool(
    'ffmpeg',
    options.ffmpegPath,
    args,
    toolRun(path, Math.min(options.maxProbeOutputBytes, maxOutputBytes), options),
  );
}

/**
 * Decodes one frame at `atSeconds` (of stream `streamIndex`; rotation applied by ffmpeg's autorotate) and
 * scales it to exactly `width`×`height` RGBA. Resolves with undefined when no frame comes out (a seek
 * past the end, an undecodable stream).
 *
 * @throws {ProbeError} see {@link runTool}.
 */
export async function frameRgba(
  path: string,
  streamIndex: number,
  atSeconds: number,
  width: number,
  height: number,
  options: ResolvedProbeOptions,
): Promise<Uint8Array | undefined> {
  const expected = width * height * 4;
  const out = await runFfmpeg(
    path,
    oneFrameArgs(path, `0:${streamIndex}`, atSeconds, `scale=${width}:${height}:flags=area`, [
      '-f',
      'rawvideo',
    ]),
    expected,
    options,
  );
  return out.length === expected ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength) : undefined;
}

/**
 * `thumbhashInputSize` (thumbhash.ts) as an ffmpeg expression of the (autorotated) input size, so a frame
 * can be sized for the ThumbHash before ffprobe has said how big the video is. Same double arithmetic and
 * the same rounding (half away from zero, as `Math.round` for positive numbers).
 */
function thumbhashSideExpression(side: 'iw' | 'ih'): string {
  const max = THUMBHASH_MAX_SIDE;
  return `'max(1,min(${max},round(${side}*min(1,${max}/max(max(iw,ih),1)))))'`;
}

/** Upper bound of a PAM header as ffmpeg writes it (7 short lines). */
const PAM_HEADER_MAX_BYTES = 128;

/** One decoded frame with the size ffmpeg gave it. */
export interface SizedFrame {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/**
 * Decodes one frame at `atSeconds` of the first video stream that is not cover art (`0:V:0`), rotated
 * by ffmpeg's autorotate and scaled to the ThumbHash input size of its displayed size, without knowing
 * that size beforehand: ffmpeg writes it in a PAM header. This is the frame a video probe starts while
 * ffprobe is still running; the caller checks stream, size and time against ffprobe's answer. Resolves
 * with undefined when no frame comes out or the output is not the PAM we asked for.
 *
 * @throws {ProbeError} see {@link runTool}.
 */
export async function earlyFrameRgba(
  path: string,
  atSeconds: number,
  options: ResolvedProbeOptions,
): Promise<SizedFrame | undefined> {
  const filter = `scale=w=${thumbhashSideExpression('iw')}:h=${thumbhashSideExpression('ih')}:flags=area`;
  const out = await runFfmpeg(
    path,
    oneFrameArgs(path, '0:V:0', atSeconds, filter, ['-f', 'image2pipe', '-c:v', 'pam']),
    THUMBHASH_MAX_SIDE * THUMBHASH_MAX_SIDE * 4 + PAM_HEADER_MAX_BYTES,
    options,
  );
  const end = out.indexOf('ENDHDR\n');
  if (end < 0 || end > PAM_HEADER_MAX_BYTES) return undefined;
  const header = out.subarray(0, end).toString('latin1');
  const field = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(header)?.[1]);
  const width = field('WIDTH');
  const height = field('HEIGHT');
  const body = out.subarray(end + 'ENDHDR\n'.length);
  if (
    !header.startsWith('P7\n') ||
    field('DEPTH') !== 4 ||
    field('MAXVAL') !== 255 ||
    !(width > 0 && height > 0) ||
    body.length !== width * height * 4
  ) {
    return undefined;
  }
  return { width, height, rgba: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
}

/**
 * `<tool> version <version>` from `-version` output. Its first line goes on with the build's URL and the
 * copyright (`ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright (c)
 * 2000-2018 the FFmpeg developers`), which read as the version where it was shown (the demo, `probe
 * --version`); only the first three words are kept. Output in another shape is kept whole (first line).
 */
export function versionLine(output: string): string {
  const first = output.split('\n')[0]?.trim() ?? '';
  return /^\S+ version \S+/.exec(first)?.[0] ?? first;
}

/** Whether one tool can be run, which one it is, and its version line. */
export interface ToolStatus {
  /** The binary tried. */
  path: string;
  /** Where it comes from: option, env (`FFMPEG_PATH`/`FFPROBE_PATH`), the PATH, the bundled package, or missing. */
  source: BinarySource;
  /** True when it ran and printed a version. */
  available: boolean;
  /** The tool and its version from `-version`, e.g. `ffprobe version 5.1.9-0+deb12u1` (no banner). */
  version?: string;
  /** Why it is not available. */
  error?: string;
}

/**
 * Checks that ffprobe and ffmpeg can be run, and says which binaries they are (used by the CLI's
 * `probe --version`, the demo, and callers that want to warn early). Never throws.
 *
 * @example
 * ```ts
 * const { ffprobe, ffmpeg } = await ffmpegAvailability();
 * if (!ffprobe.available) console.warn(ffprobe.error);
 * else console.log(`${ffprobe.source}: ${ffprobe.path} (${ffprobe.version})`); // bundled: …/ffprobe (ffprobe version …)
 * ```
 */
export async function ffmpegAvailability(
  options: Pick<ProbeOptions, 'ffprobePath' | 'ffmpegPath' | 'probeTimeoutMs'> = {},
): Promise<{ ffprobe: ToolStatus; ffmpeg: ToolStatus }> {
  const resolved = resolveProbeOptions(options);
  const check = async (tool: ToolName, explicit: string | undefined): Promise<ToolStatus> => {
    const { path, source } = locateBinary(tool, explicit);
    try {
      const out = await runTool(tool, path, ['-hide_banner', '-version'], {
        timeoutMs: resolved.probeTimeoutMs,
        maxOutputBytes: 1024 * 1024,
      });
      return { path, source, available: true, version: versionLine(out.toString('utf8')) };
    } catch (error) {
      return {
        path,
        source,
        available: false,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  };
  const [probe, mpeg] = await Promise.all([
    check('ffprobe', options.ffprobePath),
    check('ffmpeg', options.ffmpegPath),
  ]);
  return { ffprobe: probe, ffmpeg: mpeg };
}
