/**
 * HEIC/HEIF stills (every iPhone photo since iOS 11), behind one module.
 *
 * sharp's prebuilt libvips reads HEIF metadata but has no HEVC decoder, and Debian's ffmpeg 5.1 cannot
 * open HEIF image items at all ("moov atom not found"). Without pixels there is no ThumbHash, and a
 * `photo` requires one, so we decode with libheif compiled to WebAssembly (`heic-decode` over
 * `libheif-js`, no native code, no install script). libheif applies the HEIF transformations (`irot`,
 * `imir`, `clap`), so the decoded size is the displayed size. It decodes the full picture (no
 * shrink-on-load): a 12 MP iPhone photo takes ~2.6 s and ~48 MB here, hence the byte and pixel limits,
 * checked before the pixels are decoded.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { LimitError, ProbeError } from '../../core/errors.js';
import { type HeicDecode, loadHeicDecode } from './lazy-deps.js';
import { assertWithinPixelLimit } from './options.js';

/** HEIF brands that hold still images (file-type's names, normalised). */
export const HEIF_STILL_TYPES: ReadonlySet<string> = new Set(['image/heic', 'image/heif']);

// libheif-js reports a failed decode with console.log("Decoding image failed", …) before rejecting: on
// stdout, where it would corrupt the CLI's JSON lines. While any decode is running, that one message is
// dropped; every other console.log passes through unchanged. Reference-counted for concurrent decodes.
const LIBHEIF_FAILURE_LOG = 'Decoding image failed';
let quietDepth = 0;
let originalLog: typeof console.log | undefined;

async function withoutLibheifFailureLog<T>(work: () => Promise<T>): Promise<T> {
  if (quietDepth++ === 0) {
    const original = console.log;
    originalLog = original;
    console.log = (...args: unknown[]) => {
      if (args[0] !== LIBHEIF_FAILURE_LOG) original.apply(console, args);
    };
  }
  try {
    return await work();
  } finally {
    if (--quietDepth === 0 && originalLog) {
      console.log = originalLog;
      originalLog = undefined;
    }
  }
}

/** Decoded, oriented RGBA pixels. */
export interface DecodedHeic {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/**
 * Decodes the first top-level image of a HEIC/HEIF file to RGBA.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the file exceeds `maxBytes` or the image `maxPixels`.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when libheif cannot decode it.
 */
export async function decodeHeicFile(
  path: string,
  limits: { maxBytes: number; maxPixels: number },
): Promise<DecodedHeic> {
  const { size } = await stat(path);
  if (size > limits.maxBytes) {
    throw new LimitError(
      `expected a HEIC file of at most ${limits.maxBytes} bytes (maxHeicBytes) but received ${size} bytes`,
    );
  }
  const buffer = await readFile(path);
  const decodeHeic = await loadHeicDecode();
  let images: Awaited<ReturnType<HeicDecode['all']>>;
  try {
    images = await decodeHeic.all({ buffer });
  } catch (error) {
    throw new ProbeError(`libheif could not read the HEIF file: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    const first = images[0];
    if (!first) throw new ProbeError('the HEIF file holds no image');
    assertWithinPixelLimit(first.width, first.height, limits.maxPixels, 'the HEIF image');
    const decoded = await withoutLibheifFailureLog(() => first.decode());
    return {
      width: decoded.width,
      height: decoded.height,
      rgba: new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength),
    };
  } catch (error) {
    if (error instanceof LimitError || error instanceof ProbeError) throw error;
    throw new ProbeError(`libheif could not decode the HEIF image: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    images.dispose();
  }
}
