/**
 * The media message `play --happy … --session ID MESSAGE_ID` plays: found by its id in the session's
 * transcript (a v2 `photo`/`video`/`file`, or Happy's v1 `file` event, whose ref names the server's file),
 * turned into what the playback engine takes.
 *
 * @module
 */
import {
  type HappyClient,
  type HappyServerStore,
  type HappySession,
  type MediaInput,
  parseHappyFileEvent,
  StorageError,
  UsageError,
  unwrapSessionContent,
} from '../index.js';

const MEDIA_TYPES = new Set(['photo', 'video', 'file']);

/** A v1 `file` event inside a legacy record, or `undefined`. */
function fileEventOf(record: unknown) {
  try {
    return parseHappyFileEvent(unwrapSessionContent(record));
  } catch {
    return undefined;
  }
}

/**
 * Reads the session until the message `id` and returns it as a playback input for `store`.
 *
 * @throws {StorageError} `ERR_NOT_FOUND` when the session has no message with that id.
 * @throws {UsageError} `ERR_USAGE` when the message is not a photo, video or file.
 */
export async function findSessionMedia(
  client: HappyClient,
  session: HappySession,
  store: HappyServerStore,
  id: string,
): Promise<MediaInput> {
  for await (const record of client.readMessages(session)) {
    if (record.kind === 'message' && record.message.id === id) {
      if (!MEDIA_TYPES.has(record.message.type)) {
        throw new UsageError(
          `message ${id} (seq ${record.seq}) is a ${record.message.type} message, not a photo, video or file`,
        );
      }
      return record.message;
    }
    if (record.kind === 'legacy') {
      const event = fileEventOf(record.record);
      if (event?.id === id) {
        const { ev } = event;
        return {
          ref: store.mediaRef(ev.ref),
          format: 'v1',
          name: ev.name,
          size: ev.size,
          ...(ev.mimeType === undefined ? {} : { mimeType: ev.mimeType }),
        };
      }
    }
  }
  throw new StorageError(
    `no message ${JSON.stringify(id.slice(0, 64))} in session ${session.id} (list its messages with: happy-media transcript ${session.id})`,
    { code: 'ERR_NOT_FOUND' },
  );
}
