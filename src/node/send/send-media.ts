/**
 * The upload-first send pipeline: a file (or stream) becomes an encrypted blob in a store and a
 * validated Session Protocol v2 `photo`, `video` or `file` message, optionally sealed for the session.
 *
 * Order matters: probe → encrypt while uploading (exact length announced from `ciphertextSize`) → only
 * after the store confirmed the blob, build the message → seal. A failed or cancelled upload therefore
 * never yields a message, and its partial blob is deleted. Every call uses a fresh ref, so a retry never
 * overwrites or resumes a half-written blob.
 *
 * @module
 */
import { stat } from 'node:fs/promises';
import { ciphertextSize } from '../../core/blob/index.js';
import { chunksPerPartWithin } from '../../core/blob/parts.js';
import { assertNonNegativeInteger, bytesStream, describeValue } from '../../core/bytes.js';
import type { EncryptedEnvelope } from '../../core/envelope/index.js';
import { LEGACY_OVERHEAD_BYTES, sealMessage, sealRaw } from '../../core/envelope/index.js';
import { AbortedError, HappyMediaError, InvalidArgumentError } from '../../core/errors.js';
import { assertFitsV1Attachment } from '../../core/happy/attachment-limit.js';
import { type HappyFileEvent, happyFileEvent } from '../../core/happy/file-event.js';
import { wrapForApp } from '../../core/happy/session-wrapper.js';
import { encryptV1Blob } from '../../core/happy/v1-blob.js';
import type { BuildOptions, MediaMessage } from '../../core/protocol/index.js';
import { mediaMessage } from '../../core/send/media-message.js';
import { uploadMediaBlob } from '../../core/send/media-upload.js';
import { type PlaintextSource, streamPlaintextSource } from '../../core/send/plaintext-source.js';
import { checkSendTarget, type MediaAuthor, type SendTargetOptions } from '../../core/send/send-options.js';
import { readSizedBody } from '../../core/storage/sized-body.js';
// Registers the node:crypto chunk cipher, so encryption runs at native speed.
import '../blob/index.js';
import { sanitizeFileName } from '../../core/media/file-name.js';
import { stripMetadataStream } from '../../core/media/strip/strip-metadata.js';
import { assertWithinStoreLimit, uploadFailure } from '../../core/storage/blob-store.js';
import { spoolToPrivateFile } from '../fs/spool.js';
import { type MediaProbe, type ProbeOptions, probeMedia } from '../media/index.js';
import { sentFilePlaintext } from './file-plaintext.js';
import { type OpenedJournal, openUploadJournal } from './upload-journal.js';

/** A progress event of {@link sendMedia}. */
export interface SendProgress {
  /**
   * `probe` (0 of 1, then 1 of 1), then `encrypt-upload` in ciphertext bytes stored (across the parts of
   * media in parts), and for media in parts `parts`: parts stored of the parts in all, as each is stored.
   */
  step: 'probe' | 'encrypt-upload' | 'parts';
  /** Units done. */
  done: number;
  /** Units in total. */
  total: number;
}

/** A stream to send, for callers without a path. */
export interface SendStreamInput {
  /** The plaintext bytes. */
  stream: ReadableStream<Uint8Array>;
  /** File name to report (sanitised). */
  name: string;
  /** Exact length in bytes. */
  size: number;
  /**
   * The probe result, when the caller has it: the stream is then encrypted and uploaded directly.
   * Without it, the stream is spooled to a private temp file and probed from there.
   */
  probe?: MediaProbe;
}

/** Bytes in memory to send (an agent's inline image): spooled to a private temp file and probed there. */
export interface SendBytesInput {
  /** The plaintext bytes. */
  bytes: Uint8Array;
  /** File name to report (sanitised). */
  name: string;
  /** The probe result, when the caller has it (its `size` must be `bytes.length`). */
  probe?: MediaProbe;
}

/** The bytes as a stream input, checked. */
function fromBytes(input: SendBytesInput): SendStreamInput {
  if (!(input.bytes instanceof Uint8Array)) {
    throw new InvalidArgumentError(
      `expected a Uint8Array for \`input.bytes\` but received ${describeValue(input.bytes)}`,
    );
  }
  return {
    stream: bytesStream(input.bytes),
    name: input.name,
    size: input.bytes.length,
    ...(input.probe ? { probe: input.probe } : {}),
  };
}

/** Options of {@link sendMedia}. */
export interface SendOptions extends SendTargetOptions {
  /** Cancels probing, encryption and upload; the partial upload is deleted. */
  signal?: AbortSignal;
  /** Progress of each long step. */
  onProgress?: (event: SendProgress) => void;
  /** Limits and tool paths for probing. */
  probeOptions?: Omit<ProbeOptions, 'signal'>;
  /** Pins the message's `id` and `time` (tests, replays). */
  messageOptions?: BuildOptions;
  /**
   * Blob format: `v2` (Cobblestone-256 chunks, a v2 message; the default) or `v1` (Happy's whole-file
   * secretbox blob, at most 10 MiB, described by a happy-wire `file` event: what Happy's released app opens;
   * pass the session blob key as `blobKey`).
   */
  format?: 'v2' | 'v1';
  /**
   * Largest attachment a v2 blob is cut into when it is stored in parts (default: the store's
   * `maxBlobBytes`, 10 MiB on Happy's server; a blob larger than this goes in parts, on any store).
   * Smaller parts redo less after a failure, but each costs one of Happy's 60 new attachments a minute.
   */
  partBytes?: number;
  /** Told what the user should know: a resumed send, a send that starts over, a wait the server imposes. */
  onNotice?: (text: string) => void;
  /**
   * Send the bytes exactly as they are. By default a JPEG, PNG, WebP, HEIC/HEIF, AVIF, MP4 or MOV loses
   * its location and identifying metadata first (GPS, camera make, model and serial, owner, lens,
   * software, original time), in place and without re-encoding: the same size, the same pixels, still
   * upright; the probe (size, ThumbHash) is of the same picture (docs/media.md, "Private photos").
   */
  keepMetadata?: boolean;
  /**
   * Resume an interrupted send of the same file (a path) to the same place (the store's `location`), and
   * record this one so that it can be resumed (default true; media in parts, or a store with
   * `createResumable`: S3, the media server). The record is a private file under `$XDG_STATE_HOME/happy-media/uploads/`
   * with no plaintext and no key, removed once the send is complete. `false`: send afresh, recording nothing.
   */
  resume?: boolean;
}

/** What {@link sendMedia} produced with `format: 'v1'`: the blob is a v1 blob, the message happy-wire's. */
export interface SendV1Result extends Omit<SendResult, 'message' | 'envelope'> {
  /** Happy's attachment message (happy-wire session envelope with a `file` event; its `ev.ref` is the server's ref on Happy's server). */
  message: HappyFileEvent;
  /** The message wrapped as Happy's app does and sealed, when `sealKey` was given. */
  envelope?: EncryptedEnvelope;
}

/** What {@link sendMedia} produced. */
export interface SendResult {
  /** The validated v2 message (`photo`, `video` or `file`). */
  message: MediaMessage;
  /** The sealed message, when `sealKey` was given. */
  envelope?: EncryptedEnvelope;
  /** The blob's ref (`media/<id>`), also in `message.ref`. */
  ref: string;
  /** Bytes stored (the ciphertext length; of all parts together for media in parts). */
  ciphertextSize: number;
  /** Attachments the blob is stored in: 1, or its parts (then its manifest is under `ref`). */
  parts: number;
  /** What probing found (kind, MIME type, size, dimensions, ThumbHash, warnings). */
  probe: MediaProbe;
}

/** Reads the whole plaintext (at most Happy's 10 MiB) and seals it as one v1 blob. */
async function v1BlobStream(
  plaintext: ReadableStream<Uint8Array>,
  size: number,
  blobKey: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<ReadableStream<Uint8Array>> {
  const whole = new Uint8Array(size);
  let at = 0;
  for await (const chunk of readSizedBody(plaintext, size, signal ? { signal } : {})) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  const blob = encryptV1Blob(whole, blobKey);
  whole.fill(0);
  return bytesStream(blob);
}

function buildHappyFileEvent(
  probe: MediaProbe,
  ref: string,
  author: MediaAuthor,
  options: SendOptions,
): HappyFileEvent {
  const image =
    (probe.kind === 'photo' || probe.kind === 'video') &&
    probe.width !== undefined &&
    probe.height !== undefined &&
    probe.thumbhash !== undefined
      ? { width: probe.width, height: probe.height, thumbhash: probe.thumbhash }
      : undefined;
  return happyFileEvent(
    {
      ...author,
      ref,
      name: probe.name,
      size: probe.size,
      mimeType: probe.mimeType,
      ...(image ? { image } : {}),
    },
    options.messageOptions ?? {},
  );
}

/**
 * The size of a v1 input, checked against Happy's v1 cap before anything is read: a stream's or bytes'
 * own, a path's from the file system (`undefined` for a path that cannot be examined: the probe then
 * says why it cannot be read).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when it is larger than one v1 attachment carries.
 */
async function announcedSize(input: string | SendStreamInput): Promise<number | undefined> {
  if (typeof input !== 'string') {
    assertFitsV1Attachment(input.size, input.name);
    return input.size;
  }
  const info = await stat(input).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  assertFitsV1Attachment(info.size, input);
  return info.size;
}

/**
 * Probes, encrypts, uploads and describes one file (a path, a stream, or bytes in memory) as a v2 message.
 * Unless `keepMetadata`, the file's location and identifying metadata are neutralised in place before
 * encryption (same size, same pixels).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once for a bad key, store, role/turn or input.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` before anything is read or uploaded when a v1 file is larger
 *   than one Happy attachment holds (`HAPPY_MAX_PLAINTEXT_BYTES.v1`), whatever the store.
 * @throws {ProbeError} when probing fails (`ERR_UNREADABLE_INPUT` for a missing file, ...).
 * @throws {StorageError} `ERR_UPLOAD_FAILED` and others from the store; nothing is left stored.
 * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts; nothing is left stored.
 * @throws {NotSupportedError} `ERR_NOT_SUPPORTED` for a stream given with its probe (so walked in one
 *   pass) whose metadata one pass cannot remove; nothing is left stored.
 * @throws {SchemaError} `ERR_SCHEMA` if the message would not validate (e.g. a bad turn id); the blob is deleted.
 * @example
 * ```ts
 * const store = openStore('http://127.0.0.1:8787');
 * const { message, envelope } = await sendMedia('shot.png', {
 *   store, blobKey, role: 'agent', turn, sealKey: dataKey(sessionKey),
 *   onProgress: ({ step, done, total }) => console.error(step, done, total),
 * });
 * ```
 */
export async function sendMedia(
  input: string | SendStreamInput | SendBytesInput,
  options: SendOptions & { format: 'v1' },
): Promise<SendV1Result>;
export async function sendMedia(
  input: string | SendStreamInput | SendBytesInput,
  options: SendOptions & { format?: 'v2' },
): Promise<SendResult>;
export async function sendMedia(
  input: string | SendStreamInput | SendBytesInput,
  options: SendOptions,
): Promise<SendResult | SendV1Result>;
export async function sendMedia(
  given: string | SendStreamInput | SendBytesInput,
  options: SendOptions,
): Promise<SendResult | SendV1Result> {
  const { result, finish } = await sendMediaJournaled(given, options);
  await finish(true);
  return result;
}

/**
 * {@link sendMedia}, with the journal it resumed from and recorded into left to the caller: `finish(true)`
 * forgets the record (the send is complete: its message was posted), `finish(false)` keeps it for the
 * next run (the message could not be posted). `sendToSession` appends the message between the two, so a
 * run killed after the upload posts the same message (same id) when it is run again.
 *
 * @internal
 */
export async function sendMediaJournaled(
  given: string | SendStreamInput | SendBytesInput,
  options: SendOptions,
): Promise<{ result: SendResult | SendV1Result; finish: (posted: boolean) => Promise<void> }> {
  const opened = await openJournalFor(given, options);
  try {
    const result = await sendOnce(given, options, opened);
    return {
      result,
      async finish(posted) {
        if (posted) await opened?.journal.remove();
        await opened?.close();
      },
    };
  } catch (error) {
    await opened?.close();
    throw error;
  }
}

/**
 * The journal of a send of the file at `given` (a path) to the store's location, when it may be resumed:
 * v2, not refused by `resume: false`, a store that names its location. Why there is none is told only
 * when it would surprise (another send of the same file is running).
 */
async function openJournalFor(
  given: string | SendStreamInput | SendBytesInput,
  options: SendOptions,
): Promise<OpenedJournal | undefined> {
  const location = (options?.store as { location?: unknown } | undefined)?.location;
  if (typeof given !== 'string' || given === '' || options.format === 'v1' || options.resume === false) {
    return undefined;
  }
  if (typeof location !== 'string') return undefined;
  const opened = await openUploadJournal(given, location);
  if ('why' in opened) {
    if (/another send/.test(opened.why)) options.onNotice?.(opened.why);
    return undefined;
  }
  return opened;
}

/** The input of a send as a path or a stream, checked (bytes become a stream). */
function checkedInput(given: string | SendStreamInput | SendBytesInput): string | SendStreamInput {
  const input =
    given !== null && typeof given === 'object' && 'bytes' in given
      ? fromBytes(given)
      : (given as string | SendStreamInput);
  if (typeof input !== 'string') {
    if (input === null || typeof input !== 'object' || !(input.stream instanceof ReadableStream)) {
      throw new InvalidArgumentError(
        'expected a path, `{ stream, name, size }` or `{ bytes, name }` for `input`',
      );
    }
    assertNonNegativeInteger(input.size, 'input.size');
    sanitizeFileName(input.name);
    if (input.probe && input.probe.size !== input.size) {
      throw new InvalidArgumentError(
        `expected \`input.probe.size\` to equal \`input.size\` (${input.size}) but received ${input.probe.size}`,
      );
    }
  } else if (input.length === 0) {
    throw new InvalidArgumentError('expected a file path for `input` but received an empty string');
  }
  return input;
}

/** A probed input and the plaintext that is sent of it; `cleanup` removes a spooled copy. */
interface ProbedInput {
  probe: MediaProbe;
  source: PlaintextSource;
  cleanup?: () => Promise<void>;
}

/**
 * Step 1: probes the input (from the path, from the caller, or from a private spooled copy of the
 * stream) and opens what is sent of it: the bytes with their location and identifying metadata
 * neutralised unless `keepMetadata` (planned from a file's structure; a stream given with its probe is
 * walked as it passes). Same-size edits: the length announced for the upload stays exact.
 */
async function probeInput(
  input: string | SendStreamInput,
  options: SendOptions,
  keepMetadata: boolean,
): Promise<ProbedInput> {
  const probeOptions = { ...options.probeOptions, signal: options.signal };
  if (typeof input === 'string') {
    const probe = await probeMedia(input, probeOptions);
    return { probe, source: await sentFilePlaintext(input, probe.size, { keepMetadata }) };
  }
  if (input.probe) {
    return {
      probe: { ...input.probe, name: sanitizeFileName(input.name) },
      source: streamPlaintextSource(
        keepMetadata ? input.stream : input.stream.pipeThrough(stripMetadataStream(input.size)),
        input.size,
      ),
    };
  }
  const spooled = await spoolToPrivateFile(input.stream, {
    expectedSize: input.size,
    signal: options.signal,
  });
  try {
    const probe = {
      ...(await probeMedia(spooled.path, probeOptions)),
      name: sanitizeFileName(input.name),
    };
    const source = await sentFilePlaintext(spooled.path, input.size, { keepMetadata });
    return { probe, source, cleanup: spooled.cleanup };
  } catch (error) {
    await spooled.cleanup();
    throw error;
  }
}

/** What a stored blob is: its ref, its parts, every ref stored for it, and the message describing it. */
interface StoredBlob {
  ref: string;
  parts: number;
  stored: string[];
  message: MediaMessage | HappyFileEvent;
}

/**
 * Steps 2 and 3: encrypts straight into the store, the exact length (`total`) announced up front (a v2
 * blob larger than one attachment of the store, Happy's server's 10 MiB, in parts; a v1 blob is one
 * attachment by design, its cap checked before), then, only with the blob stored, describes it. Whatever
 * fails after the upload leaves nothing behind where the store can delete.
 */
async function storeBlob(
  probed: ProbedInput,
  total: number,
  author: MediaAuthor,
  options: SendOptions,
  opened: OpenedJournal | undefined,
): Promise<StoredBlob> {
  const { store, blobKey, signal, onProgress } = options;
  const { probe, source } = probed;
  let stored: string[] = [];
  const reportUpload = (done: number, all: number) =>
    onProgress?.({ step: 'encrypt-upload', done, total: all });
  try {
    if (options.format === 'v1') {
      // The store issues the ref and confirms the blob; the event carries the ref it confirmed (a v1
      // blob cannot be bound to it: Happy's fixed format).
      const { ref } = await store.create(
        total,
        async () => v1BlobStream(await source.read(0, probe.size, signal), probe.size, blobKey, signal),
        { ...(signal ? { signal } : {}), onProgress: reportUpload },
      );
      stored = [ref];
      if (signal?.aborted) throw new AbortedError('the send was aborted', { cause: signal.reason });
      // A v1 event carries the store's own name for the blob when it has one (Happy's server:
      // sessions/<sid>/attachments/<uuid>.enc).
      const message = buildHappyFileEvent(probe, store.serverRef?.(ref) ?? ref, author, options);
      return { ref, parts: 1, stored, message };
    }
    // Bound to the ref the store issued (in parts: the manifest's, stored last).
    const upload = await uploadMediaBlob(store, source, blobKey, {
      ...(signal ? { signal } : {}),
      onProgress: reportUpload,
      onParts: (done, count) => onProgress?.({ step: 'parts', done, total: count }),
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      ...(options.partBytes === undefined ? {} : { chunksPerPart: chunksPerPartWithin(options.partBytes) }),
      ...(options.messageOptions ? { message: options.messageOptions } : {}),
      ...(opened ? { resume: { journal: opened.journal, stamp: opened.stamp } } : {}),
    });
    stored = upload.stored;
    if (signal?.aborted) throw new AbortedError('the send was aborted', { cause: signal.reason });
    // Described as the message the upload's record names.
    const message = mediaMessage(probe, upload.ref, author, upload.message);
    return { ref: upload.ref, parts: upload.parts, stored, message };
  } catch (error) {
    // Happy's server cannot delete: its attachments stay until their session is deleted, and their refs
    // are never returned.
    for (const done of stored) await store.delete?.(done).catch(() => {});
    if (signal?.aborted && !(error instanceof AbortedError)) {
      throw new AbortedError('the send was aborted; the partial upload was deleted', { cause: error });
    }
    throw uploadFailure(error);
  }
}

/** One send, resumed from and recorded into `opened` when given. */
async function sendOnce(
  given: string | SendStreamInput | SendBytesInput,
  options: SendOptions,
  opened: OpenedJournal | undefined,
): Promise<SendResult | SendV1Result> {
  const author = checkSendTarget(options);
  const { store, signal, onProgress } = options;
  const input = checkedInput(given);
  if (signal?.aborted)
    throw new AbortedError('the send was aborted before it started', { cause: signal.reason });
  const v1 = options.format === 'v1';
  // A v1 blob is a Happy attachment whatever store holds it (Happy's app reads no bigger one): the one
  // check of that cap, before anything is read, on every road (a session, a store).
  const announced = v1 ? await announcedSize(input) : undefined;

  if (options.keepMetadata !== undefined && typeof options.keepMetadata !== 'boolean') {
    throw new InvalidArgumentError(
      `expected true or false for \`options.keepMetadata\` but received ${describeValue(options.keepMetadata)}`,
    );
  }
  let cleanup: (() => Promise<void>) | undefined;
  try {
    // 1. Probe, and open what is sent.
    onProgress?.({ step: 'probe', done: 0, total: 1 });
    const probed = await probeInput(input, options, options.keepMetadata === true);
    cleanup = probed.cleanup;
    const { probe } = probed;
    onProgress?.({ step: 'probe', done: 1, total: 1 });
    if (announced !== undefined && probe.size !== announced) {
      throw new InvalidArgumentError(
        `the file changed size while it was probed (${announced} → ${probe.size} bytes); send it again`,
      );
    }
    const total = v1 ? probe.size + LEGACY_OVERHEAD_BYTES : ciphertextSize(probe.size);
    if (v1) assertWithinStoreLimit(store, total);
    // 2, 3. Encrypt into the store, then describe what it holds.
    const { ref, parts, message } = await storeBlob(probed, total, author, options, opened);
    // 4. Optionally seal it for the session (a v1 event in the wrapper Happy's app writes).
    if (v1) {
      const event = message as HappyFileEvent;
      const envelope = options.sealKey ? sealRaw(wrapForApp(event), options.sealKey) : undefined;
      return { message: event, ...(envelope ? { envelope } : {}), ref, ciphertextSize: total, parts, probe };
    }
    const envelope = options.sealKey ? sealMessage(message as MediaMessage, options.sealKey) : undefined;
    return {
      message: message as MediaMessage,
      ...(envelope ? { envelope } : {}),
      ref,
      ciphertextSize: total,
      parts,
      probe,
    };
  } catch (error) {
    if (signal?.aborted && !(error instanceof HappyMediaError && error.code === 'ERR_ABORTED')) {
      throw new AbortedError('the send was aborted', { cause: error });
    }
    throw error;
  } finally {
    await cleanup?.();
  }
}
