/**
 * uploadMediaBlob's resumable send in parts, against an in-memory store and journal: an interrupted send
 * resumes with only what the store has not confirmed (bytes counted), a part the store stored before the
 * interruption is found and not sent again, the message keeps its id and time, and a file that changed
 * (its stamp, or the content of a part already sent) starts over with a fresh salt and says so. The
 * journal never holds the key or plaintext.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bytesStream, equalBytes, randomBytes, toBase64 } from '../../../src/core/bytes.js';
import { StorageError } from '../../../src/core/errors.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import {
  type FileStamp,
  type PartsUploadRecord,
  type UploadJournal,
  uploadMediaBlob,
} from '../../../src/core/send/media-upload.js';
import type { PlaintextSource } from '../../../src/core/send/plaintext-source.js';
import { memoryStore } from '../../helpers/memory-store.js';

const key = randomBytes(32);
const CHUNKS = 4;
const PART = CHUNKS * 16400;

function fileSource(plain: Uint8Array): PlaintextSource {
  return {
    size: plain.length,
    rereadable: true,
    read: async (offset, length) => bytesStream(plain.slice(offset, offset + length)),
  };
}

function memoryJournal() {
  let record: PartsUploadRecord | undefined;
  const saves: string[] = [];
  const journal: UploadJournal & { saves: string[]; current: () => PartsUploadRecord | undefined } = {
    saves,
    current: () => record,
    load: async () => (record === undefined ? undefined : JSON.parse(JSON.stringify(record))),
    save: async (next) => {
      saves.push(JSON.stringify(next));
      record = JSON.parse(JSON.stringify(next));
    },
    remove: async () => {
      record = undefined;
    },
  };
  return journal;
}

/** A store that fails the `failAt`-th create (1-based) after taking its body, storing it first when asked. */
function failingStore(failAt: number, storeFirst = false) {
  const store = memoryStore();
  const create = store.create.bind(store);
  let creates = 0;
  const sent: number[] = [];
  store.create = async (size, body, options) => {
    creates += 1;
    if (creates === failAt) {
      if (storeFirst) {
        await create(size, body, options);
        sent.push(size);
      } else {
        await body('media/neverstored00000000000');
      }
      throw new StorageError('the connection dropped (injected)', { code: 'ERR_UPLOAD_FAILED' });
    }
    const done = await create(size, body, options);
    sent.push(size);
    return done;
  };
  return { store, sent, healthy: () => (failAt = Number.POSITIVE_INFINITY) };
}

async function play(store: ReturnType<typeof memoryStore>, ref: string, size: number) {
  return downloadMedia({ ref, size }, { source: store, blobKey: key, sink: memorySink(), retries: 0 });
}

describe('uploadMediaBlob: resuming a send in parts', () => {
  const plain = randomBytes(9 * 65536 + 4321); // 10 parts of 4 chunks
  const stamp: FileStamp = { size: plain.length, mtimeMs: 1_700_000_000_000 };

  it('resumes after an interruption, sending only what the store did not confirm, as the same message', async () => {
    const journal = memoryJournal();
    const { store, sent, healthy } = failingStore(4);
    const notices: string[] = [];
    const options = {
      chunksPerPart: CHUNKS,
      resume: { journal, stamp },
      onNotice: (t: string) => notices.push(t),
    };
    await expect(uploadMediaBlob(store, fileSource(plain), key, options)).rejects.toMatchObject({
      code: 'ERR_UPLOAD_FAILED',
    });
    const record = journal.current() as PartsUploadRecord;
    // Two parts are stored at once: parts 0..2 and part 4 (in flight beside the failed part 3) are stored.
    expect(record.parts.sent.map((entry) => entry?.confirmed ?? null)).toEqual([
      true,
      true,
      true,
      false,
      true,
      null,
      null,
      null,
      null,
      null,
    ]);
    // No key and no plaintext in anything the journal kept.
    for (const saved of journal.saves) {
      expect(saved).not.toContain(toBase64(key));
      expect(saved).not.toContain(toBase64(plain.subarray(0, 24)));
    }
    healthy();
    sent.length = 0;
    const upload = await uploadMediaBlob(store, fileSource(plain), key, options);
    expect(notices.join('\n')).toMatch(/resuming an interrupted send: 4 of 10 parts/);
    expect(upload.message).toEqual(record.message);
    // Re-sent: part 3, parts 5..9 and the manifest; nothing of parts 0..2 and 4.
    const left = upload.ciphertextSize - 4 * PART - 56;
    expect(sent.slice(0, -1).reduce((a, b) => a + b, 0)).toBe(left);
    expect(upload.sentBytes - (sent.at(-1) as number)).toBe(left);
    expect(equalBytes((await play(store, upload.ref, plain.length)) as Uint8Array, plain)).toBe(true);
  });

  it('a part the store stored before the interruption is found, not sent again', async () => {
    const journal = memoryJournal();
    const { store, sent, healthy } = failingStore(6, true);
    const options = { chunksPerPart: CHUNKS, resume: { journal, stamp } };
    await expect(uploadMediaBlob(store, fileSource(plain), key, options)).rejects.toThrow();
    healthy();
    // Parts 0..5 were stored (the 6th despite the failure), and part 6, in flight beside it.
    const before = sent.length;
    expect(before).toBe(7);
    const upload = await uploadMediaBlob(store, fileSource(plain), key, options);
    expect(sent.length - before).toBe(10 - 7 + 1); // parts 7..9 and the manifest
    expect(equalBytes((await play(store, upload.ref, plain.length)) as Uint8Array, plain)).toBe(true);
  });

  it('killed after the manifest was stored: nothing is sent again, and the same ref comes back', async () => {
    const journal = memoryJournal();
    const { store, sent, healthy } = failingStore(11, true);
    const options = { chunksPerPart: CHUNKS, resume: { journal, stamp } };
    await expect(uploadMediaBlob(store, fileSource(plain), key, options)).rejects.toThrow();
    healthy();
    const manifestRef = (journal.current() as PartsUploadRecord).parts.manifest?.ref;
    const before = sent.length;
    const upload = await uploadMediaBlob(store, fileSource(plain), key, options);
    expect(sent.length).toBe(before);
    expect(upload.ref).toBe(manifestRef);
    expect(upload.sentBytes).toBe(0);
  });

  it('a changed file starts over and says so: its stamp, or the content of a part already sent', async () => {
    for (const change of ['stamp', 'content'] as const) {
      const journal = memoryJournal();
      const { store, sent, healthy } = failingStore(5);
      const notices: string[] = [];
      const options = {
        chunksPerPart: CHUNKS,
        resume: { journal, stamp },
        onNotice: (t: string) => notices.push(t),
      };
      await expect(uploadMediaBlob(store, fileSource(plain), key, options)).rejects.toThrow();
      const first = journal.current() as PartsUploadRecord;
      healthy();
      sent.length = 0;
      const changed = plain.slice();
      if (change === 'content') changed[65536 + 10] = (changed[65536 + 10] as number) ^ 1; // part 1, stored
      const upload = await uploadMediaBlob(store, fileSource(changed), key, {
        ...options,
        resume: { journal, stamp: change === 'stamp' ? { ...stamp, mtimeMs: stamp.mtimeMs + 1 } : stamp },
      });
      expect(notices.join('\n')).toMatch(
        change === 'stamp' ? /changed .*starting over/ : /part 2 .*differs.*starting over/,
      );
      const second = journal.current() as PartsUploadRecord;
      expect(second.parts.salt).not.toBe(first.parts.salt);
      expect(second.parts.binding).not.toBe(first.parts.binding);
      expect(sent.length).toBe(11); // every part again, and the manifest
      expect(equalBytes((await play(store, upload.ref, plain.length)) as Uint8Array, changed)).toBe(true);
    }
  });

  it('without a journal, a failed send in parts deletes what it stored', async () => {
    const { store } = failingStore(3);
    await expect(uploadMediaBlob(store, fileSource(plain), key, { chunksPerPart: CHUNKS })).rejects.toThrow();
    expect(store.blobs.size).toBe(0);
    // Two parts, the ref the failed one was given, and the part stored beside it.
    expect(store.deleted).toHaveLength(4);
  });
});

describe('uploadMediaBlob: waits the store imposes', () => {
  const plain = randomBytes(9 * 65536 + 4321); // 10 parts of 4 chunks
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A store that makes every create wait (as Happy's full window does) before it stores. */
  function waitingStore(ms: number, advance = 0) {
    const store = memoryStore();
    const create = store.create.bind(store);
    store.create = async (size, body, options) => {
      options?.onWait?.({
        ms,
        reason: "Happy's server takes at most 60 new attachments a minute per account",
      });
      vi.setSystemTime(Date.now() + advance);
      return create(size, body, options);
    };
    return store;
  }

  it('says a stall once when it begins, not once per part', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const notices: string[] = [];
    const store = waitingStore(1000, 1000);
    await uploadMediaBlob(store, fileSource(plain), key, {
      chunksPerPart: CHUNKS,
      onNotice: (t: string) => notices.push(t),
    });
    expect(notices).toEqual([
      "Happy's server takes at most 60 new attachments a minute per account: waiting 1 s",
    ]);
  });

  it('says it again while the stall goes on (every 30 s) and when a new one begins', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const notices: string[] = [];
    // Each wait is 1 s, and 16 s pass between them: every wait begins a new stall.
    await uploadMediaBlob(waitingStore(1000, 16_000), fileSource(plain), key, {
      chunksPerPart: CHUNKS,
      onNotice: (t: string) => notices.push(t),
    });
    expect(notices).toHaveLength(11); // ten parts and the manifest
    notices.length = 0;
    // Waits of 20 s, 15 s apart: one stall; said when it begins, then every 30 s.
    await uploadMediaBlob(waitingStore(20_000, 15_000), fileSource(plain), key, {
      chunksPerPart: CHUNKS,
      onNotice: (t: string) => notices.push(t),
    });
    expect(notices[0]).toMatch(/: waiting 20 s$/);
    expect(notices.slice(1).every((t) => /still waiting, 20 s before the next attachment$/.test(t))).toBe(
      true,
    );
    expect(notices.length).toBeGreaterThanOrEqual(5);
    expect(notices.length).toBeLessThanOrEqual(7);
  });
});
