/**
 * The heavy media dependencies (sharp's libvips, libheif compiled to WebAssembly, file-type's parsers),
 * each imported on first use rather than when `happy-media/node` is imported.
 *
 * Why: they are optional peer dependencies (an app that never probes does not install them; a missing
 * one is a MissingDependencyError naming it, see ../optional-dependency.ts), and loading them up front
 * made every start (even `happy-media encrypt`, which needs none of them) pay their load time and some
 * 35 MB of resident memory. A failed load (say, no sharp binary for this platform) surfaces at the
 * first call that needs it, as that call's error.
 *
 * @module
 */
import type sharpFunction from 'sharp';
import { importOptional } from '../optional-dependency.js';

/** The `sharp()` function. */
export type SharpFunction = typeof sharpFunction;

/** libheif compiled to WebAssembly (`libheif-js/wasm-bundle`). */
export type Libheif = typeof import('libheif-js/wasm-bundle.js').default;

/** The two file-type readers used to sniff content. */
export type FileTypeReaders = Pick<typeof import('file-type'), 'fileTypeFromBuffer' | 'fileTypeFromFile'>;

let sharpLoad: Promise<SharpFunction> | undefined;
let libheifLoad: Promise<Libheif> | undefined;
let fileTypeLoad: Promise<FileTypeReaders> | undefined;

/**
 * sharp, loaded once on first use.
 *
 * @throws {MissingDependencyError} when sharp is not installed.
 */
export function loadSharp(): Promise<SharpFunction> {
  sharpLoad ??= importOptional('sharp', 'reading and resizing images', () => import('sharp')).then(
    (module) => module.default,
  );
  return sharpLoad;
}

/**
 * libheif (WebAssembly), loaded once on first use.
 *
 * @throws {MissingDependencyError} when libheif-js is not installed.
 */
export function loadLibheif(): Promise<Libheif> {
  libheifLoad ??= importOptional(
    'libheif-js',
    'decoding HEIC/HEIF photos',
    () => import('libheif-js/wasm-bundle.js'),
  ).then((module) => module.default);
  return libheifLoad;
}

/**
 * file-type, loaded once on first use.
 *
 * @throws {MissingDependencyError} when file-type is not installed.
 */
export function loadFileType(): Promise<FileTypeReaders> {
  fileTypeLoad ??= importOptional(
    'file-type',
    "detecting a file's type by its content",
    () => import('file-type'),
  );
  return fileTypeLoad;
}
