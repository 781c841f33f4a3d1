/**
 * The media message `play --happy … --session ID MESSAGE_ID` plays: found by its id in the session's
 * transcript (a v2 `photo`/`video`/`file`, or what Happy's v1 `file` event became, whose blob is v1),
 * turned into what the playback engine takes.
 *
 * @module
 */

import { StorageError } from '../errors.js';
import type { HappyClient, HappySession, MediaInput } from '../node/index.js';
import { UsageError } from './usage-error.js';

/**
 * Reads the session until the message `id` (v2, or what the legacy reader made of a v1 `file` event,
 * which keeps its id) and returns it as a playback input; a v1 attachment is played as v1.
 *
 * @throws {StorageError} `ERR_NOT_FOUND` when the session has no message with that id.
 * @throws {UsageError} `ERR_USAGE` when the message is not a photo, video or file.
 */
export async function findSessionMedia(
  client: HappyClient,
  session: HappySession,
  id: string,
): Promise<MediaInput> {
  for await (const record of client.readMessages(session)) {
    const message = record.messages.find((m) => m.id === id);
    if (!message) continue;
    if (message.type !== 'photo' && message.type !== 'video' && message.type !== 'file') {
      throw new UsageError(
        `message ${id} (seq ${record.seq}) is a ${message.type} message, not a photo, video or file`,
      );
    }
    const v1 = record.v1Blobs.find((blob) => blob.ref === message.ref);
    if (!v1) return message;
    return {
      ref: message.ref,
      format: 'v1',
      size: v1.size,
      ...('name' in message ? { name: message.name } : {}),
      ...(v1.mimeType === undefined ? {} : { mimeType: v1.mimeType }),
    };
  }
  throw new StorageError(
    `no message ${JSON.stringify(id.slice(0, 64))} in session ${session.id} (list its messages with: happy-media transcript ${session.id})`,
    { code: 'ERR_NOT_FOUND' },
  );
}
