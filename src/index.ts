/**
 * happy-media, universal entry: what an app does with Happy's sessions and their media, grouped by what a
 * caller does: read, check and build Session Protocol v2 messages; talk to Happy's server; map an agent's
 * output into v2; download and play media; send a picked file; install the runtime; handle errors.
 *
 * The specialist layers have entries of their own, each listed by name: `happy-media/envelope` (sealing
 * and opening session values yourself), `happy-media/blob` (the chunked blob itself), `happy-media/happy`
 * (Happy's formats and keys beside the client), `happy-media/mappers` (the kit a mapper is written with),
 * `happy-media/storage` (the `BlobStore` contract's helpers). Errors are one namespace, `errors`, beside
 * their base class. Nothing under these entries imports `node:` modules or Node globals, so they bundle
 * for browsers and React Native; Node-only parts (sharp, ffmpeg, files, servers) live behind
 * `happy-media/node`.
 *
 * Every export is listed by name (the one `export * as` names the `errors` namespace): what is public is
 * decided here, and test/node/public-exports.test.ts pins the list, so adding or removing an export is a
 * visible change.
 *
 * @packageDocumentation
 */

// The runtime: AES-GCM, base64 and arrays of the hot paths, installed once (happy-media/node installs
// Node's), and the AES-256-GCM implementations that work everywhere (the seam envelopes and blobs share).
export {
  type AesGcm,
  type AsyncAesGcm,
  type CipherModule,
  type CipherModuleAesGcmOptions,
  cipherModuleAesGcm,
  type GcmCipherLike,
  type GcmDecipherLike,
  nobleAesGcm,
  type SyncAesGcm,
  webCryptoAesGcm,
} from './core/aes-gcm/index.js';
// Errors: one class per kind of failure, stable ERR_* codes. The base class by name, every class in the
// `errors` namespace (src/errors.ts).
export { type ErrorCode, HappyMediaError } from './core/errors.js';
// Happy's server: the account and session client, a session's attachments as a store, an agent's log
// appended into a session, the reader of every record shape Happy has stored, and the v1 blob Happy's app
// reads (docs/happy.md). Happy's other formats and keys: happy-media/happy.
export {
  type AppendAgentLogOptions,
  type AppendAgentLogResult,
  type AppendableMessage,
  type AppendedMessage,
  appendAgentLog,
  type CreateSessionOptions,
  decryptV1Blob,
  encryptV1Blob,
  type HappyApiOptions,
  HappyClient,
  type HappyClientOptions,
  type HappyCredentials,
  type HappyFileEvent,
  type HappyRecordsSummary,
  HappyServerStore,
  type HappyServerStoreOptions,
  type HappySession,
  type HappySessionInfo,
  type HappySessionMetadata,
  type HappySessionRecord,
  type MapHappyRecordsOptions,
  mapHappyRecords,
  parseHappyCredentials,
  type ReadMessagesOptions,
  type V1Blob,
} from './core/happy/index.js';
// Mapping an agent's output into v2: the provider mappers, found by name or from a log's first events
// (docs/mappers.md). The kit a mapper is written with: happy-media/mappers.
export {
  type AgentLogFormat,
  type AgentMapper,
  type AgentMapperOptions,
  createAgentMapper,
  type DetectedAgentLog,
  detectAgentLog,
  getMapperProvider,
  type MappedOutput,
  type MapperProvider,
  type MediaHandler,
  mapAgentOutput,
} from './core/mappers/index.js';
// Media: ThumbHash from RGBA, or from a JPEG/PNG decoded in pure JavaScript (docs/media.md).
export {
  THUMBHASH_MAX_SIDE,
  type ThumbhashImageOptions,
  thumbhashFromImage,
  thumbhashFromRgba,
  thumbhashInputSize,
} from './core/media/index.js';
// Playback: download, verify and decrypt media into any sink, or read it at random; what a message asks to
// play, and its size before any download (docs/playback.md).
export {
  type DownloadMediaOptions,
  downloadMedia,
  type FetchBlobSourceOptions,
  fetchBlobSource,
  type HappyFileEventInput,
  type MediaDownloadSource,
  type MediaInput,
  type MediaRefInput,
  type MediaRequest,
  type MediaSink,
  type MediaSinkCommitInfo,
  type MediaUrl,
  type MemorySinkOptions,
  memorySink,
  type OpenMediaRandomAccessOptions,
  openMediaRandomAccess,
  type ReadableBlobStore,
  type StoredMediaOptions,
  type StoreRangeSourceOptions,
  storedMediaSize,
  storeRangeSource,
  toMediaRequest,
} from './core/playback/index.js';
// Session Protocol v2: parsing, the message schema, builders, refs, stream validation, the transcript fold
// (docs/protocol.md). The per-type and field schemas and their limits are the protocol's internals.
export {
  type AgentFileMessage,
  type AgentGroupNode,
  type AgentMessage,
  type AgentPhotoMessage,
  type AgentTextMessage,
  type AgentVideoMessage,
  assertSessionMessage,
  type BuildOptions,
  type ContentMessage,
  createMediaRef,
  createMessageId,
  createStreamValidator,
  type FileFields,
  type FileMessage,
  fileMessage,
  foldTranscript,
  isMediaRef,
  isRef,
  type JsonLine,
  type MediaMessage,
  type MessageType,
  type ParsedRef,
  type ParseMode,
  type ParseOptions,
  type ParseResult,
  type PermissionOption,
  type PermissionOptionKind,
  type PermissionRequestFields,
  type PermissionRequestMessage,
  type PermissionResponseFields,
  type PermissionResponseMessage,
  type PermissionTrailEntry,
  type PhotoFields,
  type PhotoMessage,
  parseRef,
  parseSessionMessage,
  permissionRequest,
  permissionResponse,
  photoMessage,
  type ReadJsonLinesOptions,
  type Role,
  readJsonLines,
  type ServiceFields,
  type ServiceMessage,
  type SessionMessage,
  SessionMessageSchema,
  STREAM_RULES,
  type StreamValidator,
  type StreamValidatorOptions,
  type StreamViolation,
  type StreamViolationCode,
  serviceMessage,
  type TextFields,
  type TextMessage,
  type ToolCallEndFields,
  type ToolCallEndMessage,
  type ToolCallNode,
  type ToolCallStartFields,
  type ToolCallStartMessage,
  type Transcript,
  type TranscriptNode,
  type TurnEndFields,
  type TurnEndMessage,
  type TurnNode,
  type TurnStartFields,
  type TurnStartMessage,
  type TurnStatus,
  textMessage,
  toolCallEnd,
  toolCallStart,
  turnEnd,
  turnStart,
  type UnattachedMessage,
  type UserFileMessage,
  type UserMessage,
  type UserPhotoMessage,
  type UserTextMessage,
  type UserVideoMessage,
  type VideoFields,
  type VideoMessage,
  validateStream,
  videoMessage,
} from './core/protocol/index.js';
export {
  type Base64Codec,
  type ByteAllocator,
  getRuntime,
  installRuntime,
  type Runtime,
} from './core/runtime/index.js';
// Sending from an app: a picked file encrypted into a store and described as a v2 message
// (docs/playback.md, "Happy app (Expo) playback and sending").
export {
  type MediaDetails,
  type MediaKind,
  type PickedMedia,
  type PickedMediaSource,
  type SendPickedMediaOptions,
  type SendPickedMediaResult,
  type SendTargetOptions,
  sendPickedMedia,
} from './core/send/index.js';
// Transport: the `fetch` a client takes and the options of the one retry policy.
export type { FetchFunction, RetryPolicy } from './core/transport/index.js';
export * as errors from './errors.js';
