/**
 * happy-media/happy: Happy's own formats and keys beside `HappyClient` (which the root entry exports with
 * its store and the legacy reader): the account secret in every form Happy shows, the account's and a
 * session's keys, one session record sealed or opened, the v1 `file` event, the session wrappers, and
 * Happy's attachment cap (docs/happy.md).
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
 */
export {
  type AppendableMessage,
  type AppSessionWrapper,
  accountKeys,
  type CliSessionWrapper,
  createAccountSecret,
  formatAccountSecret,
  HAPPY_MAX_ATTACHMENT_BYTES,
  type HappyAccountKeys,
  type HappyFileEventFields,
  HappyFileEventSchema,
  type HappySessionKeys,
  happyFileEvent,
  type OpenedSessionRecord,
  openSessionKeys,
  openSessionRecord,
  parseAccountSecret,
  parseHappyFileEvent,
  type ServerMessage,
  type SessionRecordPosition,
  sealSessionRecord,
  unwrapSessionContent,
  V1_BLOB_MAX_PLAINTEXT_BYTES,
  wrapForApp,
  wrapForCli,
} from './core/happy/index.js';
