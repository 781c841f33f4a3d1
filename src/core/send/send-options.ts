/**
 * What every send path checks of its options before it reads or uploads anything: the store, the blob
 * key, the sealing key, and who sends (the user, or the agent within a turn). Node's `sendMedia` and
 * the universal `sendPickedMedia` share it, so a bad option fails the same way, and before any upload.
 *
 * @module
 */
import { assertBytes, describeValue } from '../bytes.js';
import { assertSessionKey, type SessionKey } from '../envelope/envelope.js';
import { InvalidArgumentError } from '../errors.js';
import type { BlobStore } from '../storage/blob-store.js';

/** The options every send path takes: where the blob goes, its key, the author, and the sealing key. */
export interface SendTargetOptions {
  /** Where the encrypted blob goes (e.g. `client.attachmentStore(session)`: Happy's server). */
  store: BlobStore;
  /** The 32-byte blob key (a session's `blobKey`). */
  blobKey: Uint8Array;
  /** Author of the message; default `agent` when `turn` is given, else `user`. */
  role?: 'user' | 'agent';
  /** Turn id; required for agent messages, refused for user messages. */
  turn?: string;
  /** When given, the message is also sealed into an envelope with this session key. */
  sealKey?: SessionKey;
}

/** Who sends a media message: the user, or the agent within a turn. */
export type MediaAuthor = { role: 'user' } | { role: 'agent'; turn: string };

/**
 * The author of a media message from the send options: `agent` when a `turn` is given, else `user`;
 * agent messages need their turn, user messages have none.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for another role, an agent without a turn, or a
 *   user message with one.
 * @example
 * ```ts
 * mediaAuthor({ turn: 'turn_1' }); // { role: 'agent', turn: 'turn_1' }
 * ```
 */
export function mediaAuthor(options: { role?: 'user' | 'agent'; turn?: string }): MediaAuthor {
  const role = options.role ?? (options.turn === undefined ? 'user' : 'agent');
  if (role !== 'user' && role !== 'agent') {
    throw new InvalidArgumentError(
      `expected "user" or "agent" for \`options.role\` but received ${describeValue(role)}`,
    );
  }
  if (role === 'agent') {
    if (typeof options.turn !== 'string' || options.turn === '') {
      throw new InvalidArgumentError(
        'expected a turn id for `options.turn`: agent messages belong to a turn',
      );
    }
    return { role, turn: options.turn };
  }
  if (options.turn !== undefined) {
    throw new InvalidArgumentError(
      'expected no `options.turn` for a user message: turns belong to the agent',
    );
  }
  return { role };
}

/**
 * Checks the options every send path takes and says who sends.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for options that are not an object, a store
 *   without `create`, a blob key that is not 32 bytes, a sealing key that is not a session key, or a
 *   bad role/turn (see {@link mediaAuthor}).
 * @example
 * ```ts
 * const author = checkSendTarget({ store, blobKey: session.blobKey }); // { role: 'user' }
 * ```
 */
export function checkSendTarget(options: SendTargetOptions): MediaAuthor {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      `expected \`{ store, blobKey }\` for \`options\` but received ${describeValue(options)}`,
    );
  }
  const store = options.store as Partial<BlobStore> | null | undefined;
  if (typeof store !== 'object' || store === null || typeof store.create !== 'function') {
    throw new InvalidArgumentError(
      `expected a BlobStore for \`options.store\` (e.g. client.attachmentStore(session), or openStore) but received ${describeValue(store)}`,
    );
  }
  assertBytes(options.blobKey, 'blobKey', 32);
  if (options.sealKey !== undefined) assertSessionKey(options.sealKey, 'options.sealKey');
  return mediaAuthor(options);
}
