/**
 * downloadMedia with a sink that copies what it is given (Node's file sink): the plaintext goes through
 * a few arrays reused in turn, each handed out again only after the sink's write settled; any other sink
 * gets a fresh array per piece, which it may keep. Either way the sink sees the exact plaintext.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { downloadMedia } from '../../../src/core/playback/download-media.js';
import { COPIES_WRITES, type MediaSink, memorySink } from '../../../src/core/playback/media-sink.js';
import '../../../src/node/index.js';
import { privateFileSink } from '../../../src/node/playback/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { MemoryStore } from './helpers/memory-store.js';
import { pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const key = randomBytes(32);
const REF = 'media/r3cyc1ed0utputs0000000a';
const plain = pseudoRandomBytes(600_000 + 13, 9);
const blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-recycled-');
});
afterAll(() => tmp.cleanup());

function store(): MemoryStore {
  const s = new MemoryStore();
  s.pieceBytes = 40_000;
  s.put(REF, blob);
  return s;
}

/** A sink that copies each write and notes its array, and (copying) fills the array with garbage once done. */
function copyingSink(copies: boolean) {
  const inner = memorySink();
  const arrays: ArrayBufferLike[] = [];
  const sink: MediaSink<Uint8Array> & { [COPIES_WRITES]?: true } = {
    async write(bytes) {
      arrays.push(bytes.buffer);
      await inner.write(bytes.slice());
      // A copying sink is done with the array: what the download puts there next must not reach it.
      if (copies) bytes.fill(0xee);
    },
    commit: (info) => inner.commit(info),
    abort: (reason) => inner.abort(reason),
  };
  if (copies) sink[COPIES_WRITES] = true;
  return { sink, arrays };
}

describe('downloadMedia output arrays', () => {
  it('reuses a few arrays for a sink that copies, and still delivers the exact plaintext', async () => {
    const { sink, arrays } = copyingSink(true);
    const got = await downloadMedia(
      { ref: REF, mimeType: 'video/mp4', size: plain.length },
      { source: store(), blobKey: key, sink },
    );
    expect(sameBytes(got, plain)).toBe(true);
    expect(arrays.length).toBeGreaterThan(8);
    expect(new Set(arrays).size).toBeLessThan(arrays.length);
  });

  it('never hands a sink that keeps its arrays the same array twice', async () => {
    const { sink, arrays } = copyingSink(false);
    const got = await downloadMedia(
      { ref: REF, mimeType: 'video/mp4', size: plain.length },
      { source: store(), blobKey: key, sink },
    );
    expect(sameBytes(got, plain)).toBe(true);
    expect(new Set(arrays).size).toBe(arrays.length);
  });

  it('writes the exact plaintext through the file sink, which copies', async () => {
    const file = await downloadMedia(
      { ref: REF, mimeType: 'video/mp4', size: plain.length },
      { source: store(), blobKey: key, sink: privateFileSink(tmp.dir, { durable: false, sha256: false }) },
    );
    expect(sameBytes(new Uint8Array(await readFile(file.path)), plain)).toBe(true);
  });
});
