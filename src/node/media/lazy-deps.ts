/**
 * The heavy media dependencies (sharp's libvips, libheif compiled to WebAssembly, file-type's parsers),
 * each imported on first use rather than when `happy-media/node` is imported.
 *
 * Why: the CLI and the benchmarks import the library through its public entry; loading these up front
 * made every start (even `happy-media encrypt`, which needs none of them) pay their load time and some
 * 35 MB of resident memory. A failed load (say, no sharp binary for this platform) now surfaces at the
 * first call that needs it, as that call's error.
 *
 * @module
 */
import type sharpFunction from 'sharp';

/** The `sharp()` function. */
export type SharpFunction = typeof sharpFunction;

/** `heic-decode`'s default export. */
export type HeicDecode = typeof import('heic-decode').default;

/** The two file-type readers used to sniff content. */
export type FileTypeReaders = Pick<typeof import('file-type'), 'fileTypeFromBuffer' | 'fileTypeFromFile'>;

let sharpLoad: Promise<SharpFunction> | undefined;
let heicLoad: Promise<HeicDecode> | undefined;
let fileTypeLoad: Promise<FileTypeReaders> | undefined;

/** sharp, loaded once on first use. */
export function loadSharp(): Promise<SharpFunction> {
  sharpLoad ??= import('sharp').then((module) => module.default);
  return sharpLoad;
}

/** heic-decode, loaded once on first use. */
export function loadHeicDecode(): Promise<HeicDecode> {
  heicLoad ??= import('heic-decode').then((module) => module.default);
  return heicLoad;
}

/** file-type, loaded once on first use. */
export function loadFileType(): Promise<FileTypeReaders> {
  fileTypeLoad ??= import('file-type');
  return fileTypeLoad;
}
