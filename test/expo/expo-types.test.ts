/**
 * The app passes expo-file-system's and expo-crypto's modules in; the library only knows their structural
 * types (src/expo/file-system.ts, src/core/aes-gcm/expo-crypto.ts). This file is checked by `tsc` (npm run typecheck): the real package's
 * `File`, `Directory`, `Paths` and `FileHandle` (expo-file-system 55, dev dependency) must be assignable
 * to them, so a renamed or retyped member is a type error here, not a crash on a phone.
 */
import type * as ExpoCrypto from 'expo-crypto';
import type * as ExpoFileSystemModule from 'expo-file-system';
import { expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../src/core/aes-gcm/index.js';
import type { MediaSink } from '../../src/core/playback/index.js';
import {
  type ExpoDirectory,
  type ExpoFile,
  type ExpoFileHandle,
  type ExpoFileSystem,
  expoCryptoAesGcm,
  expoFileSink,
  openExpoMedia,
} from '../../src/expo/index.js';

// Never called: only type-checked. Each return is an assignment of the real type to ours.
const takesModule = (
  module: typeof ExpoFileSystemModule,
): ExpoFileSystem<ExpoFileSystemModule.File, ExpoFileSystemModule.Directory> => module;
const takesFile = (file: ExpoFileSystemModule.File): ExpoFile => file;
const takesDirectory = (directory: ExpoFileSystemModule.Directory): ExpoDirectory => directory;
const takesHandle = (handle: ExpoFileSystemModule.FileHandle): ExpoFileHandle => handle;
// What the app gets back is the module's own File (its methods, `uri`, `bytes()`...).
const sinkOf = (module: typeof ExpoFileSystemModule): MediaSink<ExpoFileSystemModule.File> =>
  expoFileSink(module);
const openOf = (module: typeof ExpoFileSystemModule): Promise<ExpoFileSystemModule.File> =>
  openExpoMedia({ ref: 'media/x' }, { fileSystem: module, source: 'https://x', blobKey: new Uint8Array(32) });

// expo-crypto 55's module is what expoCryptoAesGcm takes, and its key class is the prepared key.
const aesOf = (module: typeof ExpoCrypto): AsyncAesGcm<ExpoCrypto.AESEncryptionKey> =>
  expoCryptoAesGcm(module);

it("expo-file-system 55's module is what happy-media/expo takes (checked by tsc)", () => {
  expect(
    [takesModule, takesFile, takesDirectory, takesHandle, sinkOf, openOf, aesOf].every(
      (f) => typeof f === 'function',
    ),
  ).toBe(true);
});
