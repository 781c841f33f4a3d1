/**
 * The one way a send stores a v2 media blob (`sendMedia`, `sendPickedMedia`, and the mappers' uploads
 * through `sendMedia`): encrypted straight into `store.create` when it fits one attachment of the store,
 * else in parts (Happy's server takes at most 10 MiB per attachment): one blob cut into parts of whole
 * chunks, each part made, stored and confirmed (two stored at once, the next made meanwhile), then a small
 * manifest naming them, stored LAST;
 * the manifest's ref is the message's ref (docs/blob-format.md, "Media in parts").
 *
 * Why in that order: the store issues every name, and (Happy's S3 mode) an upload URL dies 15 minutes
 * after the store issued it, so nothing is asked for before its bytes are ready. Each part is requested
 * when it is about to be sent; the manifest, which names the parts, when they all are stored.
 *
 * With an {@link UploadJournal} (a file re-read from any offset), a send that was interrupted resumes: what
 * the journal recorded is checked against the file (its size and modification time, and the digest of
 * each part already sent, made again from the file) and only what the store has not confirmed is sent.
 * The journal holds no plaintext and no key: the salt, the binding id, the parts' refs and digests, and
 * the message's id and time, so a resumed send describes the same message (posted once: its id is the
 * `localId` Happy's server keeps one record per).
 *
 * @module
 */
import * as z from 'zod';
import {
  BLOB_HEADER_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  mediaBlobContext,
  PARTS_BINDING_SIZE,
  partsBlobContext,
} from '../blob/format.js';
import { encodePartsManifest, sealPartsManifest } from '../blob/manifest.js';
import {
  chunksPerPartWithin,
  type PartLayout,
  partCiphertext,
  partLayout,
  partPlaintext,
  type SealedPart,
  sealPart,
} from '../blob/parts.js';
import { ciphertextFrom } from '../blob/remake.js';
import { ciphertextSize } from '../blob/sizes.js';
import { createEncryptStream } from '../blob/stream.js';
import { bytesStream, equalBytes, fromBase64, randomBytes, toBase64 } from '../bytes.js';
import { AbortedError, InvalidArgumentError, isHappyMediaError } from '../errors.js';
import { type BuildOptions, createMessageId } from '../protocol/index.js';
import { type BlobStore, isRestartUpload, type WriteOptions } from '../storage/blob-store.js';
import { type PlaintextSource, sourceSpan } from './plaintext-source.js';

/**
 * Where a resumable send keeps what it needs after an interruption: one record, replaced as the send
 * goes on. Universal; `happy-media/node` keeps it in a private file under the XDG state directory.
 */
export interface UploadJournal {
  /** The record an earlier run left (anything: it is checked), or `undefined`. */
  load(): Promise<unknown>;
  /** Replaces the record; resolves once it would survive a crash (the next run resumes from it). */
  save(record: UploadRecord): Promise<void>;
  /** Forgets the record (the send is done, or starts over). */
  remove(): Promise<void>;
}

/** The size and modification time of a file when its send began: a change starts the send over. */
export interface FileStamp {
  /** Bytes. */
  size: number;
  /** Modification time, in ms since the epoch. */
  mtimeMs: number;
}

const Base64Bytes = z.string().max(128);
const RecordHead = {
  version: z.literal(1),
  stamp: z.strictObject({ size: z.number().int().nonnegative(), mtimeMs: z.number() }),
  message: z.strictObject({ id: z.string().max(64), time: z.number().int().nonnegative() }),
};
const PartsRecordSchema = z.strictObject({
  ...RecordHead,
  parts: z.strictObject({
    salt: Base64Bytes,
    binding: Base64Bytes,
    chunksPerPart: z.number().int().positive(),
    sent: z.array(
      z.union([
        z.null(),
        z.strictObject({ ref: z.string().max(256), digest: Base64Bytes, confirmed: z.boolean() }),
      ]),
    ),
    manifest: z.optional(z.strictObject({ ref: z.string().max(256), confirmed: z.boolean() })),
  }),
});
const SingleRecordSchema = z.strictObject({
  ...RecordHead,
  /** One attachment through the store's own resumable upload: the blob's salt and the store's state. */
  single: z.strictObject({ salt: Base64Bytes, store: z.unknown() }),
});
const RecordSchema = z.union([PartsRecordSchema, SingleRecordSchema]);

/** What an {@link UploadJournal} holds for a send in parts. No plaintext, no key. */
export type PartsUploadRecord = z.infer<typeof PartsRecordSchema>;
/** What an {@link UploadJournal} holds for a store's own resumable upload (S3, the media server). */
export type SingleUploadRecord = z.infer<typeof SingleRecordSchema>;
/** What an {@link UploadJournal} holds. No plaintext, no key. */
export type UploadRecord = PartsUploadRecord | SingleUploadRecord;

/** Options of {@link uploadMediaBlob}. */
export interface MediaUploadOptions {
  /** Cancels the send (`ERR_ABORTED`); with a journal, what was stored stays for the next run. */
  signal?: AbortSignal;
  /** Ciphertext bytes stored so far, across parts, of `total` (the whole blob's). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Said to the user: a resumed send, a send that starts over, a wait the store imposes (Happy's server:
   * 60 new attachments a minute, with the time left).
   */
  onNotice?: (text: string) => void;
  /** For media in parts: called as parts are stored (or found stored), with how many of how many. */
  onParts?: (stored: number, count: number) => void;
  /**
   * Chunks (16 400 bytes each) per part when the blob goes in parts; default: as many as fit one
   * attachment of the store. Smaller parts redo less after a failure but cost a store request each.
   */
  chunksPerPart?: number;
  /** The message's id and time when the caller pins them (kept in the journal otherwise). */
  message?: BuildOptions;
  /** Resume from (and record into) this journal; the source must be re-readable and `stamp` its file's. */
  resume?: { journal: UploadJournal; stamp: FileStamp };
}

/** What {@link uploadMediaBlob} stored. */
export interface MediaUpload {
  /** The message's ref: the blob's (one attachment) or its manifest's (in parts). */
  ref: string;
  /** Ciphertext bytes of the blob (the parts together; without the manifest). */
  ciphertextSize: number;
  /** Attachments the blob is stored in (1 in one attachment; the parts, not counting the manifest). */
  parts: number;
  /** The message's id and time: the journal's on a resumed send, so it is the same message. */
  message: { id: string; time: number };
  /** Ciphertext bytes this run sent (less than the blob's on a resumed send). */
  sentBytes: number;
  /** Every ref the send stored (the parts and the manifest), for a caller that must delete them. */
  stored: string[];
}

/** A resumed send found the file changed: it starts over from a fresh record. */
class StartOver extends Error {}

/**
 * Stores a v2 media blob of `source`'s plaintext under a ref the store issues, bound to it: in one
 * attachment (`mediaBlobContext(ref)`), or, over the store's `maxBlobBytes`, in parts and a manifest.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a journal without a re-readable source, or bad
 *   options.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when not even one chunk fits the store's attachments.
 * @throws {StorageError} `ERR_UPLOAD_FAILED` and the store's other errors; {AbortedError} `ERR_ABORTED`.
 * @example
 * ```ts
 * const { ref } = await uploadMediaBlob(store, streamPlaintextSource(stream, size), blobKey);
 * ```
 */
export async function uploadMediaBlob(
  store: BlobStore,
  source: PlaintextSource,
  blobKey: Uint8Array,
  options: MediaUploadOptions = {},
): Promise<MediaUpload> {
  const { signal } = options;
  if (options.resume && !source.rereadable) {
    throw new InvalidArgumentError('expected a source that can be read again (a file) to resume a send');
  }
  const total = ciphertextSize(source.size);
  const { onNotice } = options;
  const writes: WriteOptions = {
    ...(signal ? { signal } : {}),
    // A wait the store imposes (Happy's 60 new attachments a minute) is said, with its length.
    ...(onNotice ? { onWait: waitNotices(onNotice) } : {}),
  };
  // The largest attachment this send makes: the store's cap, or the part size the caller chose.
  const partBytes =
    options.chunksPerPart === undefined
      ? store.maxBlobBytes
      : BLOB_HEADER_SIZE + options.chunksPerPart * BLOB_SEALED_CHUNK_SIZE;
  if (
    options.chunksPerPart !== undefined &&
    (partBytes as number) > (store.maxBlobBytes ?? Number.POSITIVE_INFINITY)
  ) {
    throw new InvalidArgumentError(
      `expected parts of at most ${chunksPerPartWithin(store.maxBlobBytes as number)} chunks for \`chunksPerPart\` (the store takes ${store.maxBlobBytes} bytes per attachment) but received ${options.chunksPerPart}`,
    );
  }
  if ((partBytes === undefined || total <= partBytes) && options.resume && store.createResumable) {
    return resumableSingle(store, source, blobKey, total, writes, options);
  }
  if (partBytes === undefined || total <= partBytes) {
    const { ref } = await store.create(
      total,
      async (issued) =>
        (await source.read(0, source.size, signal)).pipeThrough(
          createEncryptStream(blobKey, { context: mediaBlobContext(issued) }),
        ),
      { ...writes, ...(options.onProgress ? { onProgress: options.onProgress } : {}) },
    );
    return {
      ref,
      ciphertextSize: total,
      parts: 1,
      message: messageIdentity(options),
      sentBytes: total,
      stored: [ref],
    };
  }
  const chunksPerPart = options.chunksPerPart ?? chunksPerPartWithin(partBytes);
  for (;;) {
    try {
      const upload = await PartedUpload.begin(store, source, blobKey, chunksPerPart, writes, options);
      return await upload.run();
    } catch (error) {
      if (!(error instanceof StartOver)) throw error;
      options.onNotice?.(error.message);
      await options.resume?.journal.remove();
    }
  }
}

/**
 * One attachment through the store's own resumable upload (S3 multipart, the media server's upload
 * route), recorded in the journal: the blob's salt and the store's state, so a run after an interruption
 * makes the same bytes again and the store sends only what it does not hold. A store that finds its bytes
 * differ (the file changed) makes it start over under a new ref and salt.
 */
async function resumableSingle(
  store: BlobStore,
  source: PlaintextSource,
  blobKey: Uint8Array,
  total: number,
  writes: WriteOptions,
  options: MediaUploadOptions,
): Promise<MediaUpload> {
  const { journal, stamp } = options.resume as NonNullable<MediaUploadOptions['resume']>;
  const createResumable = (store.createResumable as NonNullable<BlobStore['createResumable']>).bind(store);
  let loaded = await journal.load();
  for (;;) {
    const checked = checkedRecord(loaded, stamp);
    if (checked.why) options.onNotice?.(checked.why);
    const before = checked.record && 'single' in checked.record ? checked.record : undefined;
    if (checked.record && !before)
      options.onNotice?.('the record of an interrupted send does not fit this send; starting over');
    const dropped = checked.changed && 'single' in checked.changed ? checked.changed.single.store : undefined;
    if (before) options.onNotice?.('resuming an interrupted send');
    const salt = before ? fromBase64(before.single.salt) : randomBytes(BLOB_SALT_SIZE);
    const record: SingleUploadRecord = {
      version: 1,
      stamp,
      message: before?.message ?? messageIdentity(options),
      single: { salt: toBase64(salt), store: before?.single.store ?? null },
    };
    let held: number | undefined;
    try {
      const { ref } = await createResumable(
        total,
        async (ref, offset) =>
          ciphertextFrom(blobKey, { context: mediaBlobContext(ref) }, salt, source.size, offset, (start) =>
            source.read(start, source.size - start, writes.signal),
          ),
        {
          ...writes,
          onProgress: (done, all) => {
            held ??= done;
            options.onProgress?.(done, all);
          },
          onState: async (state) => {
            record.single.store = state;
            await journal.save(record);
          },
          ...(before ? { resumeFrom: before.single.store } : {}),
          ...(dropped === undefined ? {} : { abandon: dropped }),
        },
      );
      return {
        ref,
        ciphertextSize: total,
        parts: 1,
        message: record.message,
        sentBytes: total - (held ?? 0),
        stored: [ref],
      };
    } catch (error) {
      if (!isRestartUpload(error)) throw error;
      options.onNotice?.((error as Error).message);
      await journal.remove();
      loaded = undefined;
    }
  }
}

/** The message's id and time: the caller's, else fresh. */
function messageIdentity(options: MediaUploadOptions): { id: string; time: number } {
  return { id: options.message?.id ?? createMessageId(), time: options.message?.time ?? Date.now() };
}

/**
 * The record an earlier run left, when it is one and its file has not changed (size, modification time);
 * else why not (said to the user), with the record when it is one (its store state is to be dropped).
 */
function checkedRecord(
  loaded: unknown,
  stamp: FileStamp,
): { record?: UploadRecord; why?: string; changed?: UploadRecord } {
  if (loaded === undefined) return {};
  const parsed = RecordSchema.safeParse(loaded);
  if (!parsed.success) return { why: 'the record of an interrupted send is unreadable; starting over' };
  const record = parsed.data;
  if (record.stamp.size !== stamp.size || record.stamp.mtimeMs !== stamp.mtimeMs) {
    return {
      why: 'the file changed (size or modification time) since the interrupted send; starting over',
      changed: record,
    };
  }
  return { record };
}

/** The record of an earlier run in parts, when this send may go on from it; else why not (said to the user). */
function resumable(
  loaded: unknown,
  stamp: FileStamp,
  store: BlobStore,
  source: PlaintextSource,
): { record?: PartsUploadRecord; why?: string } {
  const { record: any, why } = checkedRecord(loaded, stamp);
  if (!any) return why === undefined ? {} : { why };
  if (!('parts' in any))
    return { why: 'the record of an interrupted send does not fit this send; starting over' };
  const record = any;
  try {
    const layout = partLayout(source.size, record.parts.chunksPerPart);
    if (
      record.parts.sent.length !== layout.count ||
      partCiphertext(layout, 0).length > (store.maxBlobBytes ?? Number.POSITIVE_INFINITY) ||
      fromBase64(record.parts.salt).length !== BLOB_SALT_SIZE ||
      fromBase64(record.parts.binding).length !== PARTS_BINDING_SIZE
    ) {
      return { why: 'the record of an interrupted send does not fit this send; starting over' };
    }
  } catch {
    return { why: 'the record of an interrupted send is unreadable; starting over' };
  }
  return { record };
}

/**
 * How long after a wait another one still belongs to the same stall (ms): Happy's window frees one
 * attachment at a time, so a big send waits about a second before each part once the window is full.
 */
const STALL_GAP_MS = 5_000;

/** How often a stall that goes on is said again (ms). */
const STALL_REMINDER_MS = 30_000;

/**
 * The `onWait` of a send: says a wait when a stall begins (with its length), then again only every
 * {@link STALL_REMINDER_MS} while waits follow each other, instead of once per part (a 1 GiB send into
 * Happy waits before each of its last forty parts).
 */
function waitNotices(onNotice: (text: string) => void): NonNullable<WriteOptions['onWait']> {
  let stallEnds = Number.NEGATIVE_INFINITY;
  let saidAt = Number.NEGATIVE_INFINITY;
  return ({ ms, reason }) => {
    const now = Date.now();
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    if (now > stallEnds + STALL_GAP_MS) {
      onNotice(`${reason}: waiting ${seconds} s`);
      saidAt = now;
    } else if (now - saidAt >= STALL_REMINDER_MS) {
      onNotice(`${reason}: still waiting, ${seconds} s before the next attachment`);
      saidAt = now;
    }
    stallEnds = Math.max(stallEnds, now + ms);
  };
}

/** Parts a send in parts stores at once. */
const PARTS_STORED_AT_ONCE = 2;

/** One send in parts: the record it keeps, and the parts it makes, stores and confirms. */
class PartedUpload {
  readonly #store: BlobStore;
  readonly #source: PlaintextSource;
  readonly #key: Uint8Array;
  readonly #writes: WriteOptions;
  readonly #options: MediaUploadOptions;
  readonly #record: PartsUploadRecord;
  readonly #resumed: boolean;
  readonly #layout: PartLayout;
  readonly #salt: Uint8Array;
  readonly #context: Uint8Array;
  /** Bytes of the parts stored whole (or found stored). */
  #done = 0;
  /** Bytes of the parts being stored that have left so far, by part. */
  readonly #moving = new Map<number, number>();
  #sent = 0;
  #stored = 0;
  /** The last journal save asked for (saves are chained). */
  #saving: Promise<void> = Promise.resolve();

  /**
   * The send to make: from the journal's record when it holds one this send may go on from (said to the
   * user either way), else from a fresh record (new salt and binding id).
   */
  static async begin(
    store: BlobStore,
    source: PlaintextSource,
    key: Uint8Array,
    chunksPerPart: number,
    writes: WriteOptions,
    options: MediaUploadOptions,
  ): Promise<PartedUpload> {
    const resume = options.resume;
    if (resume) {
      const { record, why } = resumable(await resume.journal.load(), resume.stamp, store, source);
      if (why) options.onNotice?.(why);
      if (record) return new PartedUpload(store, source, key, writes, options, record, true);
    }
    const layout = partLayout(source.size, chunksPerPart);
    const record: PartsUploadRecord = {
      version: 1,
      stamp: resume?.stamp ?? { size: source.size, mtimeMs: 0 },
      message: messageIdentity(options),
      parts: {
        salt: toBase64(randomBytes(BLOB_SALT_SIZE)),
        binding: toBase64(randomBytes(PARTS_BINDING_SIZE)),
        chunksPerPart,
        sent: new Array(layout.count).fill(null),
      },
    };
    return new PartedUpload(store, source, key, writes, options, record, false);
  }

  private constructor(
    store: BlobStore,
    source: PlaintextSource,
    key: Uint8Array,
    writes: WriteOptions,
    options: MediaUploadOptions,
    record: PartsUploadRecord,
    resumed: boolean,
  ) {
    this.#store = store;
    this.#source = source;
    this.#key = key;
    this.#writes = writes;
    this.#options = options;
    this.#record = record;
    this.#resumed = resumed;
    this.#layout = partLayout(source.size, record.parts.chunksPerPart);
    this.#salt = fromBase64(record.parts.salt);
    this.#context = partsBlobContext(fromBase64(record.parts.binding));
  }

  /**
   * Sends what the store does not hold yet. Without a journal, a failure deletes what this run stored
   * where the store can (nothing would ever name it); with one, it stays for the next run.
   */
  async run(): Promise<MediaUpload> {
    try {
      return await this.#send();
    } catch (error) {
      if (!this.#options.resume && this.#store.delete) {
        const { sent, manifest } = this.#record.parts;
        for (const ref of [...sent.map((entry) => entry?.ref), manifest?.ref]) {
          if (ref !== undefined) await this.#store.delete(ref).catch(() => undefined);
        }
      }
      throw error;
    }
  }

  async #send(): Promise<MediaUpload> {
    const layout = this.#layout;
    const { sent } = this.#record.parts;
    if (this.#resumed) {
      const stored = sent.filter((entry) => entry?.confirmed).length;
      this.#notice(
        `resuming an interrupted send: ${stored} of ${layout.count} parts were stored${this.#record.parts.manifest?.confirmed ? ', and the manifest' : ''}`,
      );
    }
    await this.#save();
    // Two parts are stored at once (a request's round trips and the server's write of one overlap the
    // other's bytes), and the next part is made meanwhile: memory stays at three parts.
    const storing = new Set<Promise<void>>();
    let failed: { error: unknown } | undefined;
    let next: Promise<SealedPart> | undefined = this.#seal(0);
    try {
      for (let index = 0; index < layout.count && !failed; index++) {
        const sealed = await (next as Promise<SealedPart>);
        next = index + 1 < layout.count ? this.#seal(index + 1) : undefined;
        next?.catch(() => undefined);
        const stored: Promise<void> = this.#storePart(index, sealed).then(
          () => void storing.delete(stored),
          (error: unknown) => {
            storing.delete(stored);
            failed ??= { error };
          },
        );
        storing.add(stored);
        if (storing.size >= PARTS_STORED_AT_ONCE) await Promise.race(storing);
      }
      await Promise.all(storing);
    } catch (error) {
      failed ??= { error };
    }
    if (failed) {
      // Nothing is left running: the other part's upload ends (stored, or failed) before the error is told.
      next?.catch(() => undefined);
      await Promise.all(storing);
      throw failed.error;
    }
    const ref = await this.#storeManifest();
    this.#options.onProgress?.(layout.ciphertextSize, layout.ciphertextSize);
    return {
      ref,
      ciphertextSize: layout.ciphertextSize,
      parts: layout.count,
      message: this.#record.message,
      sentBytes: this.#sent,
      stored: [...this.#record.parts.sent.map((entry) => (entry as { ref: string }).ref), ref],
    };
  }

  #notice(text: string): void {
    this.#options.onNotice?.(text);
  }

  /**
   * Records the send's state as it is now. Saves run one after another in the order they were asked for,
   * so two parts confirmed at once can never leave the older state on disk.
   */
  #save(): Promise<void> {
    const journal = this.#options.resume?.journal;
    if (!journal) return Promise.resolve();
    const record = structuredClone(this.#record);
    const saved = this.#saving.then(() => journal.save(record));
    this.#saving = saved.catch(() => undefined);
    return saved;
  }

  /** Makes part `index` from the file (again, on a resumed send). */
  #seal(index: number): Promise<SealedPart> {
    const span = partPlaintext(this.#layout, index);
    return sealPart(
      this.#key,
      { context: this.#context },
      this.#salt,
      this.#layout,
      index,
      sourceSpan(this.#source, span.offset, span.length, this.#options.signal),
    );
  }

  /**
   * Stores part `index` unless the store already has it: a part an earlier run sent is checked against
   * the file (its digest), and sent again only when the store does not hold it whole.
   */
  async #storePart(index: number, sealed: SealedPart): Promise<void> {
    const { sent } = this.#record.parts;
    const before = sent[index];
    const digest = toBase64(sealed.digest);
    if (before) {
      // The same salt with other plaintext would reuse nonces: nothing of a changed part is sent.
      if (!equalBytes(fromBase64(before.digest), sealed.digest)) {
        throw new StartOver(
          `part ${index + 1} of the file differs from what the interrupted send stored (the file changed); starting over`,
        );
      }
      if (before.confirmed || (await this.#holds(before.ref, sealed.bytes.length))) {
        if (!before.confirmed) {
          sent[index] = { ...before, confirmed: true };
          await this.#save();
        }
        this.#progress(sealed.bytes.length);
        return;
      }
    }
    const { ref } = await this.#store.create(
      sealed.bytes.length,
      async (issued) => {
        // Recorded before the first byte leaves: a run killed now resumes by asking for this ref.
        sent[index] = { ref: issued, digest, confirmed: false };
        await this.#save();
        return bytesStream(sealed.bytes);
      },
      {
        ...this.#writes,
        onProgress: (done) => {
          this.#moving.set(index, done);
          this.#reportProgress();
        },
      },
    );
    sent[index] = { ref, digest, confirmed: true };
    await this.#save();
    this.#sent += sealed.bytes.length;
    this.#moving.delete(index);
    this.#progress(sealed.bytes.length);
  }

  #progress(bytes: number): void {
    this.#done += bytes;
    this.#stored += 1;
    this.#reportProgress();
    this.#options.onParts?.(this.#stored, this.#layout.count);
  }

  /** Tells the bytes stored so far, those of the parts in flight included. */
  #reportProgress(): void {
    let done = this.#done;
    for (const moving of this.#moving.values()) done += moving;
    this.#options.onProgress?.(done, this.#layout.ciphertextSize);
  }

  /** True when the store holds `ref` with `size` bytes (a store writes a blob whole or not at all). */
  async #holds(ref: string, size: number): Promise<boolean> {
    try {
      return (await this.#store.head(ref)).size === size;
    } catch (error) {
      if (isHappyMediaError(error, 'ERR_NOT_FOUND')) return false;
      throw error;
    }
  }

  /** Stores the manifest naming the parts (unless an earlier run did); its ref is the message's. */
  async #storeManifest(): Promise<string> {
    const { parts } = this.#record;
    const encoded = encodePartsManifest({
      binding: fromBase64(parts.binding),
      plaintextSize: this.#source.size,
      chunksPerPart: parts.chunksPerPart,
      parts: parts.sent.map((entry) => (entry as { ref: string }).ref),
    });
    const size = ciphertextSize(encoded.length);
    const before = parts.manifest;
    if (before && (before.confirmed || (await this.#holds(before.ref, size)))) {
      if (!before.confirmed) {
        parts.manifest = { ...before, confirmed: true };
        await this.#save();
      }
      return before.ref;
    }
    if (this.#options.signal?.aborted) {
      throw new AbortedError('the send was aborted', { cause: this.#options.signal.reason });
    }
    const { ref } = await this.#store.create(
      size,
      async (issued) => {
        parts.manifest = { ref: issued, confirmed: false };
        await this.#save();
        return bytesStream(await sealPartsManifest(encoded, this.#key, issued));
      },
      this.#writes,
    );
    parts.manifest = { ref, confirmed: true };
    await this.#save();
    this.#sent += size;
    return ref;
  }
}
