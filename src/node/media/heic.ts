/**
 * HEIC/HEIF stills (every iPhone photo since iOS 11), behind one module.
 *
 * sharp's prebuilt libvips reads HEIF metadata but has no HEVC decoder, and Debian's ffmpeg 5.1 cannot
 * open HEIF image items at all ("moov atom not found"). Without pixels there is no ThumbHash, and a
 * `photo` requires one, so we decode with libheif compiled to WebAssembly (`libheif-js`, no native
 * code, no install script). libheif applies the HEIF transformations (`irot`, `imir`, `clap`), so the
 * decoded size is the displayed size. It decodes the full picture (no shrink-on-load): a 12 MP iPhone
 * photo takes ~2.6 s and ~48 MB here, hence the byte and pixel limits, checked before the pixels are
 * decoded.
 *
 * **The primary item.** The picture is the file's primary item (`pitm`), wherever it sits. Phones store
 * a photo as a `grid` (or an `iovl` overlay) of HEVC tiles; the tiles should be marked hidden, but some
 * writers do not, and libheif then lists every tile as a top-level image before the grid. Taking the
 * first top-level image (what the `heic-decode` wrapper, used before, does) reported a tile's size
 * (480×320 of a 960×640 photo) and hashed the tile.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import type { LibheifImage, LibheifPixels } from 'libheif-js/wasm-bundle.js';
import { LimitError, ProbeError } from '../../core/errors.js';
import { loadLibheif } from './lazy-deps.js';
import { assertWithinPixelLimit } from './options.js';

/** HEIF brands that hold still images (file-type's names, normalised). */
export const HEIF_STILL_TYPES: ReadonlySet<string> = new Set(['image/heic', 'image/heif']);

// libheif-js reports failures with console.log ("Decoding image failed", "Could not parse HEIF file", …)
// before returning nothing: on stdout, where it would corrupt the CLI's JSON lines. While libheif runs,
// those messages are dropped; every other console.log passes through unchanged. Reference-counted for
// concurrent decodes.
const LIBHEIF_FAILURE_LOGS: ReadonlySet<string> = new Set([
  'Decoding image failed',
  'Could not create HEIF context',
  'Could not parse HEIF file',
  'Error loading image ids',
  'No images found',
  'Could not get image data for id',
]);
let quietDepth = 0;
let originalLog: typeof console.log | undefined;

async function withoutLibheifFailureLog<T>(work: () => Promise<T> | T): Promise<T> {
  if (quietDepth++ === 0) {
    const original = console.log;
    originalLog = original;
    console.log = (...args: unknown[]) => {
      if (!(typeof args[0] === 'string' && LIBHEIF_FAILURE_LOGS.has(args[0]))) original.apply(console, args);
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

/** Decodes one image to RGBA (libheif applies rotation, mirroring and cropping). */
function decodeImage(image: LibheifImage): Promise<LibheifPixels> {
  const width = image.get_width();
  const height = image.get_height();
  return new Promise((resolve, reject) => {
    image.display({ data: new Uint8ClampedArray(width * height * 4), width, height }, (pixels) => {
      if (pixels) resolve(pixels);
      else reject(new ProbeError('libheif could not decode the HEIF image'));
    });
  });
}

/** Decoded, oriented RGBA pixels. */
export interface DecodedHeic {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/**
 * Decodes the primary image of a HEIC/HEIF file (a grid or overlay included, wherever it sits) to RGBA.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the file exceeds `maxBytes` or the image `maxPixels`.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when libheif cannot read or decode it.
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
  const libheif = await loadLibheif();
  const decoder = new libheif.HeifDecoder();
  let images: LibheifImage[] = [];
  try {
    images = await withoutLibheifFailureLog(() => decoder.decode(buffer));
    if (images.length === 0) throw new ProbeError('libheif could not read the HEIF file: it holds no image');
    // The primary item, not the first listed: tiles of a grid that are not marked hidden come first.
    const primary = images.find((image) => image.is_primary()) ?? images[0]!;
    assertWithinPixelLimit(primary.get_width(), primary.get_height(), limits.maxPixels, 'the HEIF image');
    const decoded = await withoutLibheifFailureLog(() => decodeImage(primary));
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
    for (const image of images) image.free();
    decoder.decoder?.delete();
  }
}
