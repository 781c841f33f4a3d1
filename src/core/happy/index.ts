/**
 * Public surface of Happy: the account and session client (credentials in the forms Happy's app and CLI
 * keep them, signing in, session keys, appending to and reading a session), the session's attachments
 * as a store, Happy's attachment cap, and Happy's own formats: the v1 `file` event and v1 blob, the
 * session wrappers, and the reader of every record shape Happy has written (docs/happy.md).
 *
 * @module
 */

export {
  type HappyRecordsSummary,
  type MapHappyRecordsOptions,
  mapHappyRecords,
} from '../mappers/happy/map-happy-records.js';
export type { V1Blob } from '../mappers/happy/v1-session.js';
export { createAccountSecret, formatAccountSecret, parseAccountSecret } from './account-secret.js';
export {
  type AppendAgentLogOptions,
  type AppendAgentLogResult,
  appendAgentLog,
} from './append-agent-log.js';
export { HAPPY_MAX_ATTACHMENT_BYTES, V1_BLOB_MAX_PLAINTEXT_BYTES } from './attachment-limit.js';
export { HappyServerStore, type HappyServerStoreOptions } from './attachment-store.js';
export {
  type AppendedMessage,
  type CreateSessionOptions,
  HappyClient,
  type HappyClientOptions,
  type HappySession,
  type HappySessionInfo,
  type HappySessionMetadata,
  type ReadMessagesOptions,
} from './client.js';
export { type HappyCredentials, parseHappyCredentials } from './credentials.js';
export {
  type HappyFileEvent,
  type HappyFileEventFields,
  HappyFileEventSchema,
  happyFileEvent,
  parseHappyFileEvent,
} from './file-event.js';
export type { HappyApiOptions } from './happy-api.js';
export {
  accountKeys,
  type HappyAccountKeys,
  type HappySessionKeys,
  openSessionKeys,
} from './session-keys.js';
export {
  type AppendableMessage,
  type OpenedSessionRecord,
  openSessionRecord,
  type ServerMessage,
  type SessionRecordPosition,
  sealSessionRecord,
} from './session-records.js';
export {
  type AppSessionWrapper,
  type CliSessionWrapper,
  unwrapSessionContent,
  wrapForApp,
  wrapForCli,
} from './session-wrapper.js';
export type { HappySessionRecord } from './transcript.js';
export { decryptV1Blob, encryptV1Blob } from './v1-blob.js';
