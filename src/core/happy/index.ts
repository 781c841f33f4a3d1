/**
 * Public surface of the Happy account and session client: credentials in the forms Happy's app and CLI
 * keep them, signing in, session keys, appending to and reading a session (docs/happy.md).
 *
 * @module
 */
export { createAccountSecret, formatAccountSecret, parseAccountSecret } from './account-secret.js';
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
export type { HappySessionRecord } from './transcript.js';
