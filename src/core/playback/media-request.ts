/**
 * What to play: a validated `photo`/`video`/`file` message, or a bare ref with optional hints, reduced to
 * one checked request. Everything here came over the wire, so it is validated before use.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger, describeValue } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import { type HappyFileEvent, parseHappyFileEvent } from '../happy/file-event.js';
import { unwrapSessionContent } from '../happy/session-wrapper.js';
import type { SessionMessage } from '../protocol/messages.js';
import { assertSessionMessage } from '../protocol/parse.js';
import { parseRef } from '../protocol/refs.js';
import type { ReadableBlobStore } from './resumable-download.js';

/**
 * Checks what `openMedia`, `serveMedia` and `downloadMedia` all need besides the message: an options
 * object, a store with `get()` and `head()` (named `option` in the message), and a 32-byte `blobKey`.
 *
 * @throws {InvalidArgumentError} naming the first option that is wrong.
 */
export function assertStoreAndKey(
  options: { store: ReadableBlobStore; blobKey: Uint8Array },
  option = 'store',
): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `expected an options object for \`options\` but received ${describeValue(options)}`,
    );
  }
  const { store } = options;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.get !== 'function' ||
    typeof store.head !== 'function'
  ) {
    throw new InvalidArgumentError(
      `expected a BlobStore with get() and head()${option === 'store' ? '' : ', a URL or a function of the ref'} for \`${option}\` but received ${describeValue(store)}`,
    );
  }
  assertBytes(options.blobKey, 'blobKey', 32);
}

/** A bare ref with what the caller knows about it (for blobs that did not come with a v2 message). */
export interface MediaRefInput {
  /** `media/<id>`. */
  ref: string;
  /** MIME type of the plaintext, when known (else it is sniffed from the first verified bytes). */
  mimeType?: string;
  /** Display name; its stem names the temp file. */
  name?: string;
  /** Expected plaintext size in bytes; a blob of another size is rejected. */
  size?: number;
  /** Blob format: `v2` chunked (default), or `v1` for Happy's whole-blob secretbox attachments. */
  format?: 'v2' | 'v1';
}

/**
 * Happy's v1 attachment message as Happy stores it: the `file` event alone, or inside either session
 * wrapper (`{ role: 'session', content: event }` as Happy's CLI writes it, `{ role: 'session', content:
 * { type: 'session', data: event } }` as Happy's app does). Its blob is a v1 blob; its `ref` is the
 * server's `sessions/<sid>/attachments/<uuid>.enc` (or, off Happy's server, `media/<id>`).
 */
export type HappyFileEventInput =
  | HappyFileEvent
  | { role: 'session'; content: HappyFileEvent }
  | { role: 'session'; content: { type: 'session'; data: HappyFileEvent } };

/** Anything `downloadMedia`, `openMedia` and `serveMedia` accept. */
export type MediaInput = SessionMessage | MediaRefInput | HappyFileEventInput;

/** A checked request: what a {@link MediaInput} asks to play ({@link toMediaRequest}). */
export interface MediaRequest {
  /** `media/<id>`, or (from a v1 file event) Happy's server name `sessions/<sid>/attachments/<uuid>.enc`. */
  ref: string;
  /** The message's type, or `ref` for a bare ref. */
  kind: 'photo' | 'video' | 'file' | 'ref';
  /** The blob format: `v1` for Happy's file event or a ref that says so, else `v2`. */
  format: 'v2' | 'v1';
  /** MIME type of the plaintext, when the input gives it (lowercased). */
  mimeType?: string;
  /** Display name, when the input gives it. */
  name?: string;
  /** Plaintext size in bytes, when the input gives it (a blob of another size is refused). */
  size?: number;
}

/** Happy's server name of an attachment (`HappyServerStore.serverRef`'s form); a store or URL function maps it. */
const SERVER_REF = /^sessions\/[A-Za-z0-9_-]{1,128}\/attachments\/[0-9a-f-]{36}\.enc$/;

/**
 * A v1 file event (alone or in either session wrapper) as a request: `format: 'v1'` from the event,
 * not from the caller; its plaintext `size`, `name` and `mimeType`.
 */
function fromFileEvent(input: object): MediaRequest {
  const content = 'ev' in input ? input : unwrapSessionContent(input);
  const event = parseHappyFileEvent(content);
  if (event === undefined) {
    throw new InvalidArgumentError(
      "expected Happy's v1 `file` event ({ id, time, role, ev: { t: 'file', ref, name, size } }, alone or in a session wrapper) for `message`",
    );
  }
  const { ref, name, size, mimeType } = event.ev;
  if (mimeType !== undefined && !MIME_PATTERN.test(mimeType)) {
    throw new InvalidArgumentError(
      `expected a MIME type like image/jpeg for \`ev.mimeType\` but received ${describeValue(mimeType)}`,
    );
  }
  return {
    ref: SERVER_REF.test(ref) ? ref : checkMediaRef(ref),
    kind: 'file',
    format: 'v1',
    name,
    size,
    ...(mimeType === undefined ? {} : { mimeType: mimeType.toLowerCase() }),
  };
}

const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

function checkMediaRef(ref: string): string {
  // parseRef throws ERR_INVALID_REF with the reason; a machine-file ref is valid but not downloadable.
  if (parseRef(ref).scheme !== 'media') {
    throw new InvalidArgumentError(
      'expected a `media/<id>` ref for `ref` but received a machine-file ref; those are not in a store',
    );
  }
  return ref;
}

/**
 * Validates `input` and reduces it to a {@link MediaRequest}: what `downloadMedia`, `openMedia` and
 * `serveMedia` will play (its ref, kind, blob format, and the size, name and type the message gives),
 * known before anything is fetched.
 *
 * @throws {SchemaError} `ERR_SCHEMA` for a message that does not match the protocol.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a message that is not `photo`/`video`/`file`,
 *   or bad ref-form fields.
 * @throws {StorageError} `ERR_INVALID_REF` for a malformed ref.
 */
export function toMediaRequest(input: MediaInput): MediaRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidArgumentError(
      `expected a photo, video or file message or a { ref } object for \`message\` but received ${describeValue(input)}`,
    );
  }
  if ('ev' in input || (input as { role?: unknown }).role === 'session') return fromFileEvent(input);
  if ('type' in input) {
    const message = assertSessionMessage(input);
    switch (message.type) {
      case 'photo':
        return { ref: checkMediaRef(message.ref), kind: 'photo', format: 'v2' };
      case 'video':
        return {
          ref: checkMediaRef(message.ref),
          kind: 'video',
          format: 'v2',
          mimeType: message.mimeType,
          size: message.size,
        };
      case 'file':
        return {
          ref: checkMediaRef(message.ref),
          kind: 'file',
          format: 'v2',
          mimeType: message.mimeType,
          name: message.name,
          size: message.size,
        };
      default:
        throw new InvalidArgumentError(
          `expected a photo, video or file message for \`message\` but received a ${message.type} message`,
        );
    }
  }
  const { ref, mimeType, name, size, format } = input as MediaRefInput;
  if (!('ref' in input)) {
    // Neither a media message, nor Happy's file event, nor a ref: say what would have been one.
    const role = (input as { role?: unknown }).role;
    throw new InvalidArgumentError(
      `expected a photo, video or file message (\`type\`), Happy's v1 file event (\`ev: { t: 'file' }\`, alone or in its { role: 'session' } wrapper) or { ref } for \`message\` but received an object with none of \`type\`, \`ev\` or \`ref\`${typeof role === 'string' ? ` (role ${JSON.stringify(role.slice(0, 20))}: not a media message)` : ''}`,
    );
  }
  if (typeof ref !== 'string') {
    throw new InvalidArgumentError(`expected a string for \`ref\` but received ${describeValue(ref)}`);
  }
  if (mimeType !== undefined && (typeof mimeType !== 'string' || !MIME_PATTERN.test(mimeType))) {
    throw new InvalidArgumentError(
      `expected a MIME type like video/mp4 for \`mimeType\` but received ${describeValue(mimeType)}`,
    );
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > 1024)) {
    throw new InvalidArgumentError(
      `expected a display name of 1 to 1024 characters for \`name\` but received ${describeValue(name)}`,
    );
  }
  if (size !== undefined) assertNonNegativeInteger(size, 'size');
  if (format !== undefined && format !== 'v1' && format !== 'v2') {
    throw new InvalidArgumentError(
      `expected 'v2' or 'v1' for \`format\` but received ${describeValue(format)}`,
    );
  }
  return {
    ref: checkMediaRef(ref),
    kind: 'ref',
    format: format ?? 'v2',
    ...(mimeType === undefined ? {} : { mimeType: mimeType.toLowerCase() }),
    ...(name === undefined ? {} : { name }),
    ...(size === undefined ? {} : { size }),
  };
}

/**
 * The request with its ref in the source's terms: a v1 event's server name (`sessions/<sid>/attachments/
 * <uuid>.enc`) goes to a URL function as it is (Happy's `request-download` takes it), and to a store
 * through its `mediaRef` capability (HappyServerStore: the session is checked there).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a server name and a store without `mediaRef`.
 * @throws {StorageError} `ERR_INVALID_REF` from the store's `mediaRef` (another session's name).
 */
export function requestForSource(request: MediaRequest, source: unknown, isUrl: boolean): MediaRequest {
  if (!SERVER_REF.test(request.ref) || isUrl) return request;
  const mediaRef = (source as { mediaRef?: (serverRef: string) => string }).mediaRef;
  if (typeof mediaRef !== 'function') {
    throw new InvalidArgumentError(
      "expected a store that maps Happy's server names (HappyServerStore) or a URL function for `source`: the file event names its blob sessions/<sid>/attachments/<uuid>.enc",
    );
  }
  return { ...request, ref: mediaRef.call(source, request.ref) };
}
