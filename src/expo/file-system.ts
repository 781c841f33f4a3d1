/**
 * The part of `expo-file-system` (SDK ≥ 55, its `File`/`Directory`/`Paths` API) that happy-media uses,
 * as structural types: the app passes the module in (`import * as FileSystem from 'expo-file-system'`),
 * the library never imports it, so nothing native becomes a dependency. test/expo checks the real
 * package's types are assignable to these.
 *
 * Semantics relied on (expo-file-system's documentation and native code): `create()` throws when the file
 * exists or its folder does not; `open()` gives a read-write handle at offset 0 and throws for a missing
 * file; `readBytes(n)` returns at most `n` bytes from the offset and advances it (fewer at the end);
 * `writeBytes` writes at the offset and advances it; `move(file)` renames, throws when the destination
 * exists (iOS) and updates `uri`; `delete()` throws for a missing path; every call is synchronous (JSI).
 *
 * @module
 */

/** An open file (`FileHandle`). */
export interface ExpoFileHandle {
  /** Reads at most `length` bytes at the offset and advances it; fewer (or none) at the end. */
  readBytes(length: number): Uint8Array;
  /** Writes `bytes` at the offset and advances it. */
  writeBytes(bytes: Uint8Array): void;
  /** The read/write position (assign to seek); `null` once closed. */
  offset: number | null;
  /** The file's size in bytes; `null` once closed. */
  readonly size: number | null;
  close(): void;
}

/** A file path (`File`), existing or not. */
export interface ExpoFile {
  readonly uri: string;
  readonly exists: boolean;
  /** Size in bytes; 0 when the file does not exist. */
  readonly size: number;
  create(options?: { intermediates?: boolean; overwrite?: boolean }): void;
  open(): ExpoFileHandle;
  move(destination: ExpoFile | ExpoDirectory): void;
  delete(): void;
}

/** A directory path (`Directory`), existing or not. */
export interface ExpoDirectory {
  readonly uri: string;
  readonly exists: boolean;
  create(options?: { intermediates?: boolean; idempotent?: boolean }): void;
  delete(): void;
  list(): (ExpoDirectory | ExpoFile)[];
}

/**
 * What the app passes: `expo-file-system`'s `File`, `Directory` and `Paths` (`import * as FileSystem`).
 * Generic in the module's own classes, so the files a sink returns have the module's `File` type.
 */
export interface ExpoFileSystem<F extends ExpoFile = ExpoFile, D extends ExpoDirectory = ExpoDirectory> {
  File: new (...uris: (string | F | D)[]) => F;
  Directory: new (...uris: (string | F | D)[]) => D;
  Paths: { readonly cache: D };
}
