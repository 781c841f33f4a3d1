/**
 * happy-media/expo: what Happy's app (Expo SDK ≥ 55, React Native on Hermes) needs beside the universal
 * entry, over the modules it already ships, which it passes in: native AES-GCM over expo-crypto (for
 * `installRuntime`), a `downloadMedia` sink and a cache of verified files over expo-file-system, and a
 * file source for sending that reads 256 KiB per native call.
 * The library imports no Expo module: nothing native becomes a dependency. See docs/playback.md,
 * "Happy app (Expo)".
 *
 * @packageDocumentation
 */

export {
  type ExpoCryptoAes,
  type ExpoCryptoAesGcmOptions,
  type ExpoCryptoSealedData,
  expoCryptoAesGcm,
} from '../core/aes-gcm/expo-crypto.js';
export {
  EXPO_CACHE_FOLDER,
  type ExpoFileSinkOptions,
  expoFileSink,
} from './file-sink.js';
export {
  type ExpoFileSourceOptions,
  type ExpoFileStream,
  expoFileSource,
} from './file-source.js';
export type { ExpoDirectory, ExpoFile, ExpoFileHandle, ExpoFileSystem } from './file-system.js';
export { type OpenExpoMediaOptions, openExpoMedia } from './open-media.js';
