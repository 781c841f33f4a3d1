/** The checks test/hermes/suite.ts runs under Hermes; hermes.test.ts expects an `ok` line for each. */
export const HERMES_CHECKS = [
  'runtime has no crypto.subtle, Buffer or process; the runtime AES-GCM is noble',
  'protocol: builds, parses and rejects session messages',
  'envelope legacy variant: golden vector, seal/open round trip, tamper rejected',
  'envelope dataKey variant: golden vector, seal/open round trip, tamper rejected',
  'v1 attachment blob: golden vector',
  'blob: frozen vectors reproduced byte for byte',
  'blob over an asynchronous AES-GCM: frozen vectors, tamper refused',
  'envelopes over an asynchronous AES-GCM: golden vector, openMessagesAsync, tamper refused',
  'happy-media/expo cipher: expoCryptoAesGcm over an asynchronous expo-crypto stand-in: frozen vector, decryptBlob and downloadMedia, flipped tag refused with nothing unverified released, abort',
  'blob decrypt stream: odd pieces in, exact plaintext out',
  'blob tamper: every leg fails with ERR_DECRYPTION_FAILED, nothing released',
  'random access: ranges decrypt to the exact bytes',
  'downloadMedia: fetch source with a dropped connection into a memory sink',
  'downloadMedia: tampered blob aborts the sink, v1 blob verified whole',
  'thumbhashFromImage: JPEG (EXIF orientation 6) and interlaced palette PNG give the Node run’s hashes',
  'happy-media/expo: expoFileSink and openExpoMedia over an in-memory expo-file-system (verified file, cache hit, tamper leaves nothing)',
] as const;
