/**
 * HEIC/HEIF stills (every iPhone photo since iOS 11), behind one module; and the thumbnail shortcut for
 * AVIF, the same container.
 *
 * sharp's prebuilt libvips reads HEIF metadata but has no HEVC decoder, and Debian's ffmpeg 5.1 cannot
 * open HEIF image items at all ("moov atom not found"). Without pixels there is no ThumbHash, and a
 * `photo` requires one. In order of cost:
 *
 * 1. **The thumbnail item.** Phones and cameras store a small picture beside the photo (`thmb`; an
 *    iPhone's is 320×240 beside 12 MP in 48 tiles). Its ThumbHash is the photo's (within the hash's
 *    rounding: checked against the full decode on the real-world corpus), and the displayed size comes
 *    from the primary item's properties (`ispe`, `clap`, `irot`), so nothing of the photo itself is
 *    decoded: ~10 ms of WebAssembly instead of seconds (heif-thumbnail.ts).
 * 2. **A system decoder** (`heif-dec`/`heif-convert` from libheif, heif-dec.ts) when there is one: native
 *    libde265, about 3× less CPU than the WebAssembly build.
 * 3. **libheif compiled to WebAssembly** (`libheif-js`, no native code, no install script), decoding the
 *    full picture (no shrink-on-load): a 12 MP iPhone photo takes ~2.6 s and ~48 MB here, hence the
 *    byte and pixel limits, checked before the pixels are decoded.
 *
 * libheif applies the HEIF transformations (`irot`, `imir`, `clap`), so a decoded size is the displayed
 * size, and the size from the properties agrees with it.
 *
 * **The primary item.** The picture is the file's primary item (`pitm`), wherever it sits. Phones store
 * a photo as a `grid` (or an `iovl` overlay) of HEVC tiles; the tiles should be marked hidden, but some
 * writers do not, and libheif then lists every tile as a top-level image before the grid. Taking the
 * first top-level image (what the `heic-decode` wrapper, used before, does) reported a tile's size
 * (480×320 of a 960×640 photo) and hashed the tile.
 *
 * @module
 */
import { open, readFile, stat } from 'node:fs/promises';
import type { LibheifImage, LibheifPixels } from 'libheif-js/wasm-bundle.js';
import { AbortedError, LimitError, ProbeError } from '../../core/errors.js';
import { heifDisplaySize, heifHasAlpha, heifProperty } from '../../core/media/heif.js';
import { u32be } from '../../core/media/isobmff.js';
import { withHeifDecoded } from './heif-dec.js';
import { chooseHeifThumbnail, type HeifLayout, heifThumbnailFile, readHeifLayout } from './heif-thumbnail.js';
import { type PictureProbe, probeDecodedPicture, thumbhashFromImage, thumbhashFromPixels } from './image.js';
import { loadLibheif } from './lazy-deps.js';
import { assertWithinPixelLimit, type ResolvedProbeOptions } from './options.js';

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

/**
 * Pictures smaller than this are decoded in WebAssembly even when a system decoder is there: at ~0.2 µs a
 * pixel (this machine) libheif-js finishes a 1 MP picture in about the time heif-dec takes to start.
 */
const SYSTEM_DECODER_MIN_PIXELS = 1_000_000;

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
 * Decodes the primary image of a HEIF file held in memory (a grid or overlay included, wherever it
 * sits) to RGBA, with libheif in WebAssembly.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the image is over `maxPixels`.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when libheif cannot read or decode it.
 */
async function decodeHeicBytes(buffer: Uint8Array, maxPixels: number): Promise<DecodedHeic> {
  const libheif = await loadLibheif();
  const decoder = new libheif.HeifDecoder();
  let images: LibheifImage[] = [];
  try {
    images = await withoutLibheifFailureLog(() => decoder.decode(buffer));
    if (images.length === 0) throw new ProbeError('libheif could not read the HEIF file: it holds no image');
    // The primary item, not the first listed: tiles of a grid that are not marked hidden come first.
    const primary = images.find((image) => image.is_primary()) ?? images[0]!;
    assertWithinPixelLimit(primary.get_width(), primary.get_height(), maxPixels, 'the HEIF image');
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

/**
 * Decodes the primary image of a HEIC/HEIF file with libheif in WebAssembly (the file read whole).
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
  return decodeHeicBytes(await readFile(path), limits.maxPixels);
}

/** The primary picture's stored and displayed sizes, from its properties (undefined when not stated). */
function pictureSizes(
  layout: HeifLayout,
): { stored: { width: number; height: number }; shown: { width: number; height: number } } | undefined {
  const { meta } = layout;
  if (meta.primary === undefined) return undefined;
  const ispe = heifProperty(meta, meta.primary, 'ispe');
  const shown = heifDisplaySize(meta, meta.primary);
  if (ispe === undefined || shown === undefined) return undefined;
  const stored = {
    width: u32be(meta.bytes, ispe.box.payload + 4),
    height: u32be(meta.bytes, ispe.box.payload + 8),
  };
  return { stored, shown };
}

/**
 * The ThumbHash of a HEIF's thumbnail item and the picture's displayed size from its properties, or
 * undefined when there is no usable thumbnail (then the picture itself must be decoded). A thumbnail
 * that fails to decode, or decodes to another shape than it states, is not used.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the picture's stated size is over `maxInputPixels`.
 */
async function probeFromThumbnail(
  path: string,
  layout: HeifLayout,
  fileSize: number,
  options: ResolvedProbeOptions,
): Promise<PictureProbe | undefined> {
  const sizes = pictureSizes(layout);
  if (sizes === undefined) return undefined;
  assertWithinPixelLimit(sizes.stored.width, sizes.stored.height, options.maxInputPixels, 'the HEIF image');
  const thumbnail = chooseHeifThumbnail(layout.meta, sizes.shown);
  if (thumbnail === undefined) return undefined;
  const handle = await open(path, 'r');
  let file: Uint8Array | undefined;
  try {
    file = await heifThumbnailFile(handle, layout, thumbnail, fileSize);
  } finally {
    await handle.close();
  }
  if (file === undefined) return undefined;
  try {
    let thumbhash: string;
    if (thumbnail.type === 'av01') {
      // AV1 is beyond this libheif build and within sharp's (which applies the same transformations).
      thumbhash = await thumbhashFromImage(file, { maxInputPixels: options.maxInputPixels });
    } else {
      const decoded = await decodeHeicBytes(file, options.maxInputPixels);
      if (decoded.width !== thumbnail.width || decoded.height !== thumbnail.height) return undefined;
      thumbhash = await thumbhashFromPixels(decoded.width, decoded.height, decoded.rgba);
    }
    return { ...sizes.shown, thumbhash };
  } catch (error) {
    if (error instanceof ProbeError || error instanceof LimitError) return undefined;
    throw error;
  }
}

async function layoutOf(path: string): Promise<{ layout: HeifLayout | undefined; size: number }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return { layout: await readHeifLayout(handle, size), size };
  } finally {
    await handle.close();
  }
}

/**
 * Displayed size and ThumbHash of an AVIF from its thumbnail item, when it has one (see
 * {@link probeHeic}); undefined otherwise, for sharp to decode the picture.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the picture's stated size is over `maxInputPixels`.
 */
export async function probeAvifThumbnail(
  path: string,
  options: ResolvedProbeOptions,
): Promise<PictureProbe | undefined> {
  const { layout, size } = await layoutOf(path);
  return layout === undefined ? undefined : probeFromThumbnail(path, layout, size, options);
}

/**
 * Displayed size and ThumbHash of a HEIC/HEIF still: from its thumbnail item when it has a usable one,
 * else from the primary picture decoded by the system's libheif decoder (`heif-dec`/`heif-convert`)
 * when there is one, else by libheif in WebAssembly (see the module notes).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above `maxInputPixels`, or (WebAssembly only) `maxHeicBytes`.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when no decoder can read it.
 * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts.
 */
export async function probeHeic(path: string, options: ResolvedProbeOptions): Promise<PictureProbe> {
  const { layout, size } = await layoutOf(path);
  if (layout !== undefined) {
    const fromThumbnail = await probeFromThumbnail(path, layout, size, options);
    if (fromThumbnail) return fromThumbnail;
  }
  const binary = options.heifDecPath;
  // The system decoder writes a JPEG: a picture with an alpha plane goes to the WebAssembly one, and so
  // does a small one, which that decodes in less time than a process takes to start.
  const alpha = layout?.meta.primary !== undefined && heifHasAlpha(layout.meta, layout.meta.primary);
  const stored = layout === undefined ? undefined : pictureSizes(layout)?.stored;
  const small = stored !== undefined && stored.width * stored.height < SYSTEM_DECODER_MIN_PIXELS;
  if (binary !== undefined && !alpha && !small) {
    try {
      const decoded = await withHeifDecoded(
        binary,
        path,
        {
          timeoutMs: options.probeTimeoutMs,
          maxMemoryBytes: options.maxToolMemoryBytes,
          signal: options.signal,
        },
        (jpeg) => probeDecodedPicture(jpeg, options.maxInputPixels),
      );
      return decoded;
    } catch (error) {
      // Whatever stopped the system decoder (a build without the codec, alpha it drops, a crash), the
      // WebAssembly one still gets its chance; an abort stops both.
      if (error instanceof AbortedError || options.signal?.aborted) throw error;
    }
  }
  const decoded = await decodeHeicFile(path, {
    maxBytes: options.maxHeicBytes,
    maxPixels: options.maxInputPixels,
  });
  const thumbhash = await thumbhashFromPixels(decoded.width, decoded.height, decoded.rgba);
  return { width: decoded.width, height: decoded.height, thumbhash };
}
