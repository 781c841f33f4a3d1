/**
 * Media in parts, from the send to every reader: uploadMediaBlob cuts one Cobblestone blob into parts of
 * whole chunks and stores a manifest LAST under the message's ref; downloadMedia and
 * openMediaRandomAccess tell the two forms apart by the header's commitment and read the parts through
 * one view. Every attack a store can make on the parts (substitution from another message or session,
 * reordering, dropping, truncating, extending, a replayed manifest) ends in ERR_DECRYPTION_FAILED before
 * any byte reaches the sink; a ranged read asks only the parts that hold the range.
 */
import { describe, expect, it } from 'vitest';
import {
  BLOB_HEADER_SIZE,
  ciphertextSize,
  encryptBlob,
  mediaBlobContext,
} from '../../../src/core/blob/index.js';
import { openPartsManifest, storedMediaForm } from '../../../src/core/blob/manifest.js';
import { partCiphertext, partLayout, partsTouching } from '../../../src/core/blob/parts.js';
import { bytesStream, equalBytes, randomBytes } from '../../../src/core/bytes.js';
import { downloadMedia, memorySink, openMediaRandomAccess } from '../../../src/core/playback/index.js';
import type { ReadableBlobStore } from '../../../src/core/playback/resumable-download.js';
import { type MediaUpload, uploadMediaBlob } from '../../../src/core/send/media-upload.js';
import { streamPlaintextSource } from '../../../src/core/send/plaintext-source.js';
import { rejectionOf } from '../../helpers/errors.js';
import { memoryStore } from '../../helpers/memory-store.js';

const key = randomBytes(32);
const CHUNKS = 4; // 4 chunks per part: 65 536 plaintext bytes, so a few hundred KiB make several parts

async function sendInParts(store: ReturnType<typeof memoryStore>, plain: Uint8Array, blobKey = key) {
  return uploadMediaBlob(store, streamPlaintextSource(bytesStream(plain), plain.length), blobKey, {
    chunksPerPart: CHUNKS,
  });
}

async function download(store: ReadableBlobStore, ref: string, size?: number, blobKey = key) {
  const written: number[] = [];
  const sink = memorySink();
  const result = await downloadMedia(
    { ref, ...(size === undefined ? {} : { size }) },
    {
      source: store,
      blobKey,
      retries: 0,
      sink: {
        write: (bytes) => {
          written.push(bytes.length);
          return sink.write(bytes);
        },
        commit: (info) => sink.commit(info),
        abort: (reason) => sink.abort(reason),
      },
    },
  ).catch((error: unknown) => ({ error, written }));
  return result;
}

/** Byte equality (vitest's deep equality walks a large array element by element: slow). */
function same(actual: unknown, expected: Uint8Array): boolean {
  return actual instanceof Uint8Array && equalBytes(actual, expected);
}

/** `store` answering as an HTTP 206 does: each `get` states the stored blob's whole size (`onSize`). */
function statingSizes(store: ReturnType<typeof memoryStore>): ReadableBlobStore {
  return {
    head: (ref) => store.head(ref),
    get: async (ref, range, options) => {
      options?.onSize?.((store.blobs.get(ref) as Uint8Array).length);
      return store.get(ref, range);
    },
  };
}

function partsOf(store: ReturnType<typeof memoryStore>, upload: MediaUpload) {
  return openPartsManifest(store.blobs.get(upload.ref) as Uint8Array, key, upload.ref);
}

describe('media in parts: the layout', () => {
  it('cuts the ciphertext into parts of whole chunks, the header in part 0', () => {
    const layout = partLayout(1_000_000, 4);
    expect(layout.ciphertextSize).toBe(ciphertextSize(1_000_000));
    let at = 0;
    for (let i = 0; i < layout.count; i++) {
      const span = partCiphertext(layout, i);
      expect(span.offset).toBe(at);
      at += span.length;
      if (i > 0 && i < layout.count - 1) expect(span.length).toBe(4 * 16400);
    }
    expect(at).toBe(layout.ciphertextSize);
    expect(partCiphertext(layout, 0).length).toBe(BLOB_HEADER_SIZE + 4 * 16400);
    // A multiple of the part's plaintext ends in a part holding only the empty final chunk.
    const exact = partLayout(4 * 16384, 4);
    expect(exact.count).toBe(2);
    expect(partCiphertext(exact, 1).length).toBe(16);
  });

  it('maps a byte range to the parts it touches', () => {
    const layout = partLayout(1_000_000, 4);
    expect(partsTouching(layout, 0, 56)).toEqual({ first: 0, last: 0 });
    expect(partsTouching(layout, 56 + 4 * 16400 - 1, 2)).toEqual({ first: 0, last: 1 });
    expect(partsTouching(layout, layout.ciphertextSize - 1, 1)).toEqual({
      first: layout.count - 1,
      last: layout.count - 1,
    });
  });
});

describe('media in parts: send and read back', () => {
  it('stores parts then the manifest last; every reader plays it; small media keeps one attachment', async () => {
    const store = memoryStore();
    const plain = randomBytes(600_000 + 123);
    const upload = await sendInParts(store, plain);
    const layout = partLayout(plain.length, CHUNKS);
    expect(upload.parts).toBe(layout.count);
    expect(store.created).toHaveLength(layout.count + 1); // parts, then the manifest
    expect(store.created.slice(0, -1)).toEqual(
      Array.from({ length: layout.count }, (_, i) => partCiphertext(layout, i).length),
    );
    const manifest = await partsOf(store, upload);
    expect(manifest.parts).toHaveLength(layout.count);
    expect(
      storedMediaForm(key, (store.blobs.get(upload.ref) as Uint8Array).subarray(0, 56), upload.ref),
    ).toBe('manifest');
    // The parts in order are one Cobblestone blob.
    const whole = await download(store, upload.ref, plain.length);
    expect(same(whole, plain)).toBe(true);
    // A message without a size (a photo) too.
    expect(same(await download(store, upload.ref), plain)).toBe(true);
    const reader = await openMediaRandomAccess(store, upload.ref, key);
    expect(reader.plaintextSize).toBe(plain.length);
    expect(same(await reader.read(123_456, 70_000), plain.subarray(123_456, 123_456 + 70_000))).toBe(true);

    const small = randomBytes(50_000);
    const single = await sendInParts(store, small);
    expect(single.parts).toBe(1);
    expect(
      storedMediaForm(key, (store.blobs.get(single.ref) as Uint8Array).subarray(0, 56), single.ref),
    ).toBe('blob');
    expect(same(await download(store, single.ref, small.length), small)).toBe(true);
  });

  it('plays from a store whose answers state the stored size (as an HTTP 206 does): the manifest is shorter than the media', async () => {
    const store = memoryStore();
    const plain = randomBytes(300_000 + 7);
    const upload = await sendInParts(store, plain);
    expect(upload.parts).toBeGreaterThan(1);
    const stating = statingSizes(store);
    expect(same(await download(stating, upload.ref, plain.length), plain)).toBe(true);
    expect(same(await download(stating, upload.ref), plain)).toBe(true);
  });

  it('plays media in one attachment made before parts existed', async () => {
    const store = memoryStore();
    const plain = randomBytes(200_000);
    const ref = 'media/onepieceblob0000000001';
    store.blobs.set(ref, await encryptBlob(plain, key, { context: mediaBlobContext(ref) }));
    expect(same(await download(store, ref, plain.length), plain)).toBe(true);
    expect(
      same(await (await openMediaRandomAccess(store, ref, key)).read(1000, 5000), plain.subarray(1000, 6000)),
    ).toBe(true);
  });

  it('a ranged read fetches only the parts that hold the range', async () => {
    const store = memoryStore();
    const plain = randomBytes(40 * 65536 + 999); // 41 parts
    const upload = await sendInParts(store, plain);
    const manifest = await partsOf(store, upload);
    const gets: string[] = [];
    const counting = {
      head: (ref: string) => store.head(ref),
      get: (ref: string, range?: { offset: number; length: number }) => {
        gets.push(ref);
        return store.get(ref, range);
      },
    };
    const reader = await openMediaRandomAccess(counting, upload.ref, key);
    const opened = new Set(gets);
    // Opening reads the manifest, the header in part 0 and the final chunk in the last part.
    expect(opened).toEqual(new Set([upload.ref, manifest.parts[0], manifest.parts[40]]));
    gets.length = 0;
    const offset = 20 * 65536 + 100; // inside part 20
    expect(same(await reader.read(offset, 10_000), plain.subarray(offset, offset + 10_000))).toBe(true);
    expect(new Set(gets)).toEqual(new Set([manifest.parts[20]]));
    gets.length = 0;
    const across = 25 * 65536 - 5000; // across parts 24 and 25
    expect(same(await reader.read(across, 10_000), plain.subarray(across, across + 10_000))).toBe(true);
    expect(new Set(gets)).toEqual(new Set([manifest.parts[24], manifest.parts[25]]));
  });
});

describe('media in parts: a store cannot swap, reorder, drop, cut or replay parts', () => {
  async function twoSends() {
    const store = memoryStore();
    const plain = randomBytes(300_000);
    const a = await sendInParts(store, plain);
    const b = await sendInParts(store, randomBytes(300_000));
    return { store, plain, a, b, ma: await partsOf(store, a), mb: await partsOf(store, b) };
  }

  async function expectRefused(
    store: ReturnType<typeof memoryStore>,
    ref: string,
    size: number,
    blobKey = key,
  ) {
    const result = (await download(store, ref, size, blobKey)) as { error: unknown; written: number[] };
    expect((result.error as { code?: string }).code).toBe('ERR_DECRYPTION_FAILED');
    // Nothing reached the sink: a parted download verifies the header before any chunk.
    const streamed = await rejectionOf(
      openMediaRandomAccess(store, ref, blobKey).then((reader) => reader.read(0, size)),
    );
    expect(streamed.code).toBe('ERR_DECRYPTION_FAILED');
    return result.written;
  }

  it('a part of another message in its place (same key, same index)', async () => {
    const { store, plain, a, ma, mb } = await twoSends();
    for (const index of [0, 2, ma.parts.length - 1]) {
      const saved = store.blobs.get(ma.parts[index] as string) as Uint8Array;
      store.blobs.set(ma.parts[index] as string, store.blobs.get(mb.parts[index] as string) as Uint8Array);
      await expectRefused(store, a.ref, plain.length);
      store.blobs.set(ma.parts[index] as string, saved);
    }
    expect(same(await download(store, a.ref, plain.length), plain)).toBe(true);
  });

  it('parts reordered, dropped, truncated or extended', async () => {
    const { store, plain, a, ma } = await twoSends();
    const bytes = (ref: string | undefined) => store.blobs.get(ref as string) as Uint8Array;
    const [p1, p2] = [bytes(ma.parts[1]), bytes(ma.parts[2])];
    // Swapped (same length).
    store.blobs.set(ma.parts[1] as string, p2);
    store.blobs.set(ma.parts[2] as string, p1);
    const written = await expectRefused(store, a.ref, plain.length);
    // The first part verified before the damaged one may have been written, but the sink was aborted:
    // nothing of part 1 (the swapped one) went through.
    expect(written.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(CHUNKS * 16384);
    store.blobs.set(ma.parts[1] as string, p1);
    store.blobs.set(ma.parts[2] as string, p2);
    // The next part served in a part's place (a dropped part, the rest moved up).
    store.blobs.set(ma.parts[1] as string, p2);
    await expectRefused(store, a.ref, plain.length);
    store.blobs.set(ma.parts[1] as string, p1);
    // Truncated by a chunk, and extended by a byte.
    store.blobs.set(ma.parts[1] as string, p1.subarray(0, p1.length - 16400));
    await expectRefused(store, a.ref, plain.length);
    // Extended: refused where the store tells a part's size (HTTP answers do); elsewhere the bytes past a
    // part's end are never read, and what is read is the authentic plaintext.
    store.blobs.set(ma.parts[1] as string, new Uint8Array([...p1, 0]));
    expect(same(await download(store, a.ref, plain.length), plain)).toBe(true);
    const telling = statingSizes(store);
    const told = await rejectionOf(
      downloadMedia(
        { ref: a.ref, size: plain.length },
        { source: telling, blobKey: key, sink: memorySink(), retries: 0 },
      ),
    );
    expect(told.code).toBe('ERR_DECRYPTION_FAILED');
    store.blobs.set(ma.parts[1] as string, p1);
    expect(same(await download(store, a.ref, plain.length), plain)).toBe(true);
  });

  it("another message's manifest (or its media) replayed under a ref", async () => {
    const { store, plain, a, b } = await twoSends();
    const manifestA = store.blobs.get(a.ref) as Uint8Array;
    store.blobs.set(a.ref, store.blobs.get(b.ref) as Uint8Array);
    await expectRefused(store, a.ref, plain.length);
    // A one-attachment blob of another ref, and the parts' blob itself, under the ref.
    const other = 'media/anotherrefinthesession01';
    store.blobs.set(a.ref, await encryptBlob(plain, key, { context: mediaBlobContext(other) }));
    await expectRefused(store, a.ref, plain.length);
    store.blobs.set(a.ref, manifestA);
    // Another session's key.
    await expectRefused(store, a.ref, plain.length, randomBytes(32));
    expect(same(await download(store, a.ref, plain.length), plain)).toBe(true);
  });

  it("a message's size that is not the manifest's is refused", async () => {
    const { store, plain, a } = await twoSends();
    const result = (await download(store, a.ref, plain.length + 1)) as { error: { code: string } };
    expect(result.error.code).toBe('ERR_DECRYPTION_FAILED');
  });

  it('a fixed URL cannot name the parts: refused with advice', async () => {
    const { store, a } = await twoSends();
    const manifest = store.blobs.get(a.ref) as Uint8Array;
    const fetch = async () =>
      new Response(bytesStream(manifest), {
        status: 200,
        headers: { 'content-length': String(manifest.length) },
      });
    const error = await rejectionOf(
      downloadMedia(
        { ref: a.ref },
        { source: 'https://blobs.example/one', fetch, blobKey: key, sink: memorySink() },
      ),
    );
    expect(error.code).toBe('ERR_INVALID_ARGUMENT');
    expect(error.message).toMatch(/function of the ref/);
  });
});

describe('media in parts: the download asks ahead', () => {
  /** `store` whose answers record what was asked, what was read to its end, and what was let go of. */
  function recording(store: ReturnType<typeof memoryStore>, statesSizes = true) {
    const events: string[] = [];
    let open = 0;
    const recorded: ReadableBlobStore & { events: string[]; open: () => number } = {
      events,
      open: () => open,
      head: (ref) => {
        events.push(`head ${ref}`);
        return store.head(ref);
      },
      get: async (ref, range, options) => {
        events.push(`get ${ref}`);
        if (statesSizes) options?.onSize?.((store.blobs.get(ref) as Uint8Array).length);
        const reader = (await store.get(ref, range)).getReader();
        open += 1;
        let settled = false;
        const settle = (event: string) => {
          if (settled) return;
          settled = true;
          open -= 1;
          events.push(`${event} ${ref}`);
        };
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            const step = await reader.read();
            if (step.done) {
              settle('end');
              controller.close();
            } else controller.enqueue(step.value);
          },
          cancel(reason) {
            settle('cancel');
            return reader.cancel(reason);
          },
        });
      },
    };
    return recorded;
  }

  it('asks for each part while the one before it is still being read; the manifest comes in the first answer', async () => {
    const store = memoryStore();
    const plain = randomBytes(6 * 65536 + 5); // 7 parts
    const upload = await sendInParts(store, plain);
    const { parts } = await partsOf(store, upload);
    const recorded = recording(store);
    expect(same(await download(recorded, upload.ref, plain.length), plain)).toBe(true);
    const { events } = recorded;
    // The first answer stated the stored size and held the whole manifest: neither a HEAD nor a second
    // read of it before the parts.
    expect(events.filter((event) => event.endsWith(` ${upload.ref}`))).toEqual([
      `get ${upload.ref}`,
      `end ${upload.ref}`,
    ]);
    expect(events.filter((event) => event.startsWith('head '))).toEqual([]);
    for (let i = 0; i + 1 < parts.length; i++)
      expect(events.indexOf(`get ${parts[i + 1]}`)).toBeLessThan(events.indexOf(`end ${parts[i]}`));
    // Every part read to its end, and no more than two open at once.
    for (const part of parts) expect(events).toContain(`end ${part}`);
    expect(recorded.open()).toBe(0);
  });

  it('a part refused or cut short, or the download aborted: the part asked ahead is let go of', async () => {
    const store = memoryStore();
    const plain = randomBytes(6 * 65536);
    const upload = await sendInParts(store, plain);
    const { parts } = await partsOf(store, upload);
    // Part 2 damaged: refused while part 3 was already asked for.
    const saved = store.blobs.get(parts[2] as string) as Uint8Array;
    const damaged = saved.slice();
    damaged[100] = (damaged[100] as number) ^ 1;
    store.blobs.set(parts[2] as string, damaged);
    const recorded = recording(store);
    const result = (await download(recorded, upload.ref, plain.length)) as { error: { code: string } };
    expect(result.error.code).toBe('ERR_DECRYPTION_FAILED');
    expect(recorded.events).toContain(`get ${parts[3]}`);
    expect(recorded.open()).toBe(0);
    // Part 2 cut short, from a store that does not state sizes: found at its end, part 3 asked ahead.
    store.blobs.set(parts[2] as string, saved.subarray(0, saved.length - 16400));
    const unstated = recording(store, false);
    const cut = (await download(unstated, upload.ref, plain.length)) as { error: { code: string } };
    expect(cut.error.code).toBe('ERR_DECRYPTION_FAILED');
    expect(unstated.events).toContain(`get ${parts[3]}`);
    expect(unstated.open()).toBe(0);
    store.blobs.set(parts[2] as string, saved);

    // Aborted while part 1 is read (part 2 asked ahead).
    const controller = new AbortController();
    const aborting = recording(store);
    const get = aborting.get;
    aborting.get = async (ref, range, options) => {
      const body = await get(ref, range, options);
      if (ref === parts[2]) controller.abort(new Error('the user closed the player'));
      return body;
    };
    const aborted = await rejectionOf(
      downloadMedia(
        { ref: upload.ref, size: plain.length },
        { source: aborting, blobKey: key, sink: memorySink(), retries: 0, signal: controller.signal },
      ),
    );
    expect(aborted.code).toBe('ERR_ABORTED');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborting.open()).toBe(0);
  });
});

describe('random access: opening waits for as few round trips as it can', () => {
  /** `store` whose answers come a little later (across a network), recording each get's range and how many were in flight. */
  function distant(store: ReturnType<typeof memoryStore>) {
    const gets: { ref: string; offset: number; length: number; inFlight: number }[] = [];
    const heads: string[] = [];
    let inFlight = 0;
    const far: ReadableBlobStore = {
      head: (ref) => {
        heads.push(ref);
        return store.head(ref);
      },
      get: async (ref, range, options) => {
        inFlight += 1;
        gets.push({ ref, offset: range?.offset ?? 0, length: range?.length ?? -1, inFlight });
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
        return store.get(ref, range, options);
      },
    };
    return { far, gets, heads };
  }

  it('media in one attachment: its header and final chunk are asked at once, and read only once', async () => {
    const store = memoryStore();
    const plain = randomBytes(50_000);
    const single = await sendInParts(store, plain);
    const { far, gets } = distant(store);
    const reader = await openMediaRandomAccess(far, single.ref, key);
    const stored = (store.blobs.get(single.ref) as Uint8Array).length;
    expect(gets.map(({ offset }) => offset).sort((a, b) => a - b)).toEqual([0, 56 + 3 * 16400]);
    expect(gets.some(({ inFlight }) => inFlight === 2)).toBe(true);
    expect(gets.find(({ offset }) => offset > 0)?.length).toBe(stored - (56 + 3 * 16400));
    expect(same(await reader.read(1000, 40_000), plain.subarray(1000, 41_000))).toBe(true);
  });

  it("with the message's size: media in one attachment opens in one round trip, asking no stored size", async () => {
    const store = memoryStore();
    const plain = randomBytes(50_000);
    const single = await sendInParts(store, plain);
    const { far, gets, heads } = distant(store);
    const reader = await openMediaRandomAccess(far, single.ref, key, { size: plain.length });
    expect(heads).toEqual([]);
    expect(gets.map(({ offset }) => offset).sort((a, b) => a - b)).toEqual([0, 56 + 3 * 16400]);
    expect(gets.some(({ inFlight }) => inFlight === 2)).toBe(true);
    expect(reader.plaintextSize).toBe(plain.length);
    expect(same(await reader.read(1000, 40_000), plain.subarray(1000, 41_000))).toBe(true);
  });

  it("a size other than the stored media's is refused at open, its final chunk asked once (no retry waits)", async () => {
    const store = memoryStore();
    const plain = randomBytes(50_000);
    const single = await sendInParts(store, plain);
    for (const size of [plain.length - 20_000, plain.length + 20_000, plain.length + 1, plain.length - 1]) {
      const { far, gets } = distant(store);
      const error = await rejectionOf(openMediaRandomAccess(far, single.ref, key, { size }));
      expect(error, String(size)).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
      const stated = ciphertextSize(size);
      const finalOffset = 56 + Math.floor((stated - 56 - 1) / 16400) * 16400;
      expect(
        gets.filter(({ offset }) => offset === finalOffset),
        String(size),
      ).toHaveLength(1);
    }
    await expect(openMediaRandomAccess(store, single.ref, key, { size: -1 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it("with the message's size, a final chunk read that drops is read again once the stored size agrees", async () => {
    const store = memoryStore();
    const plain = randomBytes(50_000);
    const single = await sendInParts(store, plain);
    const { far, heads } = distant(store);
    let dropped = 0;
    const dropping: ReadableBlobStore = {
      head: (ref) => far.head(ref),
      get: async (ref, range, options) => {
        if ((range?.offset ?? 0) > 0 && dropped === 0) {
          dropped += 1;
          throw new Error('connection reset');
        }
        return far.get(ref, range, options);
      },
    };
    const reader = await openMediaRandomAccess(dropping, single.ref, key, { size: plain.length, retries: 1 });
    expect(dropped).toBe(1);
    expect(heads).toEqual([single.ref]);
    expect(same(await reader.read(0, plain.length), plain)).toBe(true);
  });

  it("with the message's size, media in parts opens through its manifest; another size is refused", async () => {
    const store = memoryStore();
    const plain = randomBytes(6 * 65536 + 5);
    const upload = await sendInParts(store, plain);
    const { far, heads } = distant(store);
    const reader = await openMediaRandomAccess(far, upload.ref, key, { size: plain.length });
    // The manifest's size is asked once; the final chunk read at the media's size is let go of unasked.
    expect(heads).toEqual([upload.ref]);
    expect(same(await reader.read(70_000, 100_000), plain.subarray(70_000, 170_000))).toBe(true);
    const error = await rejectionOf(
      openMediaRandomAccess(store, upload.ref, key, { size: plain.length - 1 }),
    );
    expect(error).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
  });

  it("with the message's size, from a store whose answers state the stored size (as HTTP's do), media in parts asks no size", async () => {
    const store = memoryStore();
    const plain = randomBytes(6 * 65536 + 5);
    const upload = await sendInParts(store, plain);
    const stating = statingSizes(store);
    const heads: string[] = [];
    const counted: ReadableBlobStore = {
      head: (ref) => {
        heads.push(ref);
        return stating.head(ref);
      },
      get: (ref, range, options) => stating.get(ref, range, options),
    };
    const reader = await openMediaRandomAccess(counted, upload.ref, key, { size: plain.length });
    expect(heads).toEqual([]);
    expect(same(await reader.read(70_000, 100_000), plain.subarray(70_000, 170_000))).toBe(true);
  });

  it('media in parts: the final chunk asked at once is let go of; part 0 and the last part are read at once', async () => {
    const store = memoryStore();
    const plain = randomBytes(6 * 65536 + 5);
    const upload = await sendInParts(store, plain);
    const { parts } = await partsOf(store, upload);
    const { far, gets } = distant(store);
    const reader = await openMediaRandomAccess(far, upload.ref, key);
    const onParts = gets.filter(({ ref }) => ref !== upload.ref);
    expect(onParts.map(({ ref }) => ref).sort()).toEqual([parts[0], parts.at(-1)].sort());
    expect(onParts.some(({ inFlight }) => inFlight === 2)).toBe(true);
    expect(same(await reader.read(70_000, 100_000), plain.subarray(70_000, 170_000))).toBe(true);
  });
});
