/**
 * The slice of each library area the benchmarks use, as structural types.
 *
 * The suites load areas lazily (see `load.ts`) so that a missing area is a skipped suite, not a crash;
 * these interfaces are what the loaded modules must provide (the names agreed in docs/architecture.md).
 *
 * @module
 */

/** Chunk-cipher backend names of the blob format. */
export type BackendName = 'node' | 'webcrypto' | 'noble';

/** `src/core/blob`. */
export interface BlobApi {
  encryptBlob(
    plaintext: Uint8Array,
    key: Uint8Array,
    options?: { backend?: BackendName },
  ): Promise<Uint8Array>;
  decryptBlob(
    ciphertext: Uint8Array,
    key: Uint8Array,
    options?: { backend?: BackendName },
  ): Promise<Uint8Array>;
  ciphertextSize(plaintextLength: number): number;
  createEncryptStream(
    key: Uint8Array,
    options?: { backend?: BackendName },
  ): TransformStream<Uint8Array, Uint8Array>;
  openBlobRandomAccess(
    source: RangeSourceLike,
    key: Uint8Array,
  ): Promise<{ plaintextSize: number; read(offset: number, length: number): Promise<Uint8Array> }>;
}

/** A random-access byte source (see docs/architecture.md). */
export interface RangeSourceLike {
  size(): Promise<number>;
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/** `src/node/blob` (importing it registers the node backend). */
export interface NodeBlobApi {
  fileRangeSource(path: string): RangeSourceLike & { close?(): Promise<void> };
  encryptFile(inPath: string, outPath: string, key: Uint8Array): Promise<unknown>;
}

/** A session key of the envelope layer. */
export type SessionKeyLike =
  | { variant: 'legacy'; secret: Uint8Array }
  | { variant: 'datakey'; key: Uint8Array };

/** `src/core/envelope`. */
export interface EnvelopeApi {
  sealMessage(message: unknown, key: SessionKeyLike): { t: 'encrypted'; c: string };
  openMessage(envelope: unknown, key: SessionKeyLike): unknown;
  legacyKey(secret: Uint8Array): SessionKeyLike;
  dataKey(key: Uint8Array): SessionKeyLike;
}

/** `src/core/protocol` (the builders the benchmarks use). */
export interface ProtocolApi {
  textMessage(fields: { role: 'user' | 'agent'; text: string; turn?: string }): unknown;
}

/** What `probeMedia` returns (the fields the benchmarks look at). */
export interface MediaProbeLike {
  kind: 'photo' | 'video' | 'file';
  mimeType: string;
  size: number;
  width?: number;
  height?: number;
  durationMs?: number;
  thumbhash?: string;
}

/** `src/node/media`. */
export interface MediaApi {
  probeMedia(input: string): Promise<MediaProbeLike>;
}

/** The `BlobStore` contract (docs/architecture.md). */
export interface BlobStoreLike {
  put(ref: string, body: ReadableStream<Uint8Array>, size: number): Promise<void>;
  get(ref: string, range?: { offset: number; length: number }): Promise<ReadableStream<Uint8Array>>;
  head(ref: string): Promise<{ size: number }>;
  delete(ref: string): Promise<void>;
}

/** `src/node/storage`. */
export interface StorageApi {
  LocalBlobStore: new (dir: string) => BlobStoreLike;
  HttpBlobStore: new (baseUrl: string, options?: { token?: string }) => BlobStoreLike;
  startMediaServer(options: { dir?: string; port?: number; host?: string }): Promise<{
    url: string;
    close(): Promise<void>;
  }>;
}

/** `src/node/send`. */
export interface SendApi {
  sendMedia(
    input: string,
    options: { store: BlobStoreLike; blobKey: Uint8Array; role?: 'user' | 'agent'; turn?: string },
  ): Promise<{ message: unknown; ref: string; ciphertextSize: number; probe: MediaProbeLike }>;
}

/** `src/node/playback`. */
export interface PlaybackApi {
  openMedia(
    message: unknown,
    options: { store: BlobStoreLike; blobKey: Uint8Array; tempRoot?: string },
  ): Promise<{ path: string; mimeType: string; size: number; dispose(): Promise<void> }>;
}

/** `src/core/protocol` ref helper. */
export interface RefApi {
  createMediaRef(): string;
}

// Compile-time proof that the real areas provide what the benchmarks call: if an agreed signature
// drifts, the type check fails here instead of a benchmark failing at run time.
type Satisfies<Actual extends Expected, Expected> = Actual;
/** Never used at run time: compiling it proves each area satisfies the interfaces above. */
export type ApiConformance = [
  Satisfies<typeof import('../../src/core/blob/index.js'), BlobApi>,
  Satisfies<typeof import('../../src/node/blob/index.js'), NodeBlobApi>,
  Satisfies<typeof import('../../src/core/envelope/index.js'), EnvelopeApi>,
  Satisfies<typeof import('../../src/core/protocol/index.js'), ProtocolApi & RefApi>,
  Satisfies<typeof import('../../src/node/media/index.js'), MediaApi>,
  Satisfies<typeof import('../../src/node/storage/index.js'), StorageApi>,
  Satisfies<typeof import('../../src/node/send/index.js'), SendApi>,
  Satisfies<typeof import('../../src/node/playback/index.js'), PlaybackApi>,
];
