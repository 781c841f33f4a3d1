/**
 * Public surface of the Node side of Happy's server: credentials from a file, and one call that sends a
 * file into a session (probe → encrypt → upload → message → append).
 *
 * @module
 */

export { HAPPY_MAX_PLAINTEXT_BYTES } from '../../core/happy/attachment-limit.js';
export { MAX_CREDENTIALS_TEXT_LENGTH } from '../../core/happy/credentials.js';
export { credentialsFromText, readHappyCredentialsFile } from './credentials-file.js';
export { type SendToSessionOptions, type SendToSessionResult, sendToSession } from './send-to-session.js';
