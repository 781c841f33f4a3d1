/**
 * Types for the part of `libheif-js` 1.23 we use (it ships types for the raw WebAssembly exports only):
 * the CommonJS `wasm-bundle` entry, whose `HeifDecoder` lists a file's top-level images.
 */
declare module 'libheif-js/wasm-bundle.js' {
  /** Pixels handed to {@link LibheifImage.display} and filled by it (interleaved RGBA). */
  interface LibheifPixels {
    data: Uint8ClampedArray;
    width: number;
    height: number;
  }
  /** A top-level image of a HEIF file (an image handle). */
  interface LibheifImage {
    get_width(): number;
    get_height(): number;
    /** True for the file's primary item (`pitm`). */
    is_primary(): boolean;
    /** Decodes into `pixels` (with the HEIF transformations applied); calls `done(null)` on failure. */
    display(pixels: LibheifPixels, done: (result: LibheifPixels | null) => void): void;
    /** Releases the image handle. */
    free(): void;
  }
  /** Parses a HEIF file; `decode` returns its top-level images (an empty list when it cannot). */
  interface LibheifDecoder {
    decoder: { delete(): void } | null;
    decode(buffer: Uint8Array): LibheifImage[];
  }
  const libheif: { HeifDecoder: new () => LibheifDecoder };
  export default libheif;
  export type { LibheifDecoder, LibheifImage, LibheifPixels };
}
