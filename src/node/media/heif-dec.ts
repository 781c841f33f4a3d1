/**
 * libheif's own command-line decoder, when the system has one: `heif-dec` (libheif ≥ 1.17) or
 * `heif-convert` (its earlier name; Debian 12's libheif-examples). Native libde265 decodes a 12 MP iPhone
 * photo in ~0.75 s of CPU where libheif compiled to WebAssembly takes ~2.6 s, so a HEIC without a
 * thumbnail item is decoded here when it can be, as video is by ffmpeg. It writes a JPEG (quality 90)
 * into a private temp directory; the caller hashes it and the directory is removed.
 *
 * Which binary: `heifDecoderBinary` (ffmpeg-binaries.ts). The child runs as ffmpeg does (`runTool`: argument
 * array, the input as an absolute path, timeout, output and memory limits, killed with its process
 * group, environment without secrets).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ProbeError } from '../../core/errors.js';
import { createPrivateDirectory } from '../fs/private-dir.js';
import { runTool } from './ffmpeg.js';

/** Prefix of the private temp directory the decoded picture is written to (swept as the others are). */
const HEIF_DEC_DIR_PREFIX = 'happy-media-heifdec-';

/** Limits of one decoder run. */
export interface HeifDecOptions {
  timeoutMs: number;
  maxMemoryBytes: number;
  signal?: AbortSignal | undefined;
}

/**
 * Decodes the primary image of `path` with `binary` into a JPEG (rotation, mirroring and crop applied)
 * and passes that JPEG's path to `use`; the temp directory is removed once `use` settled.
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the decoder fails, crashes, or writes no single picture
 *   (a file whose tiles are not marked hidden makes it write one picture per top-level image);
 *   `ERR_PROBE_TIMEOUT` past `timeoutMs`.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when it needed more than `maxMemoryBytes`.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 * @throws {DiskError} `ERR_DISK` when the temp directory cannot be made.
 */
export async function withHeifDecoded<T>(
  binary: string,
  path: string,
  options: HeifDecOptions,
  use: (jpegPath: string) => Promise<T>,
): Promise<T> {
  const dir = await createPrivateDirectory(tmpdir(), HEIF_DEC_DIR_PREFIX);
  try {
    const out = join(dir.path, 'decoded.jpg');
    const input = resolve(path);
    await runTool('heif-dec', binary, ['-q', '90', input, out], {
      timeoutMs: options.timeoutMs,
      maxOutputBytes: 64 * 1024,
      maxMemoryBytes: options.maxMemoryBytes,
      signal: options.signal,
      redact: input,
    });
    if (!existsSync(out)) {
      throw new ProbeError(
        'the HEIF decoder wrote no single picture (the file holds several top-level images)',
      );
    }
    return await use(out);
  } finally {
    await dir.remove();
  }
}
