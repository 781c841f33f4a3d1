/**
 * Playback conformance against the external corpus (HAPPY_MEDIA_CORPUS, see ../shared/corpus/MANIFEST.md): every file of
 * media/index.csv (file-type fixtures, mathiasbynens/small, misc) is encrypted, played back through
 * openMedia as a bare ref with no MIME type (as a photo message arrives), and must come back byte for byte
 * (its SHA-256 equals the CSV's), with the MIME type file-type gives it (sniffed from the first verified
 * bytes) and the extension of that type. Real sizes put the final chunk at many different lengths.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { randomBytes } from '../../src/core/bytes.js';
import { extensionForMimeType } from '../../src/core/playback/media-names.js';
import { openMedia } from '../../src/node/playback/index.js';
import { corpusPath, hasCorpus, readCorpusCsv } from '../helpers/corpus.js';
import { makeTempDir } from '../helpers/tmp.js';
import { MemoryStore } from '../node/playback/helpers/memory-store.js';

describe.skipIf(!hasCorpus)('playback conformance: media corpus', () => {
  const key = randomBytes(32);
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let rows: Record<string, string>[] = [];

  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-playback-conformance-');
    rows = (await readCorpusCsv('media', 'index.csv')).filter((r) => r.file);
  });
  afterAll(() => tmp?.cleanup());

  it('plays every corpus file back byte for byte, named by its sniffed type', async () => {
    expect(rows.length).toBeGreaterThan(90);
    const mismatches: string[] = [];
    for (const row of rows) {
      const plain = new Uint8Array(await readFile(corpusPath('media', row.file!)));
      const store = new MemoryStore();
      const ref = 'media/conformance0000000000000';
      store.put(ref, await encryptBlob(plain, key, { context: mediaBlobContext(ref) }));
      const media = await openMedia({ ref }, { store, blobKey: key, tempRoot: tmp.dir });
      try {
        const digest = createHash('sha256')
          .update(await readFile(media.path))
          .digest('hex');
        expect(digest, row.file).toBe(row.sha256);
        expect(media.size, row.file).toBe(Number(row.size));
        const expectedMime = row.filetype_mime || 'application/octet-stream';
        if (media.mimeType !== expectedMime)
          mismatches.push(`${row.file}: ${media.mimeType} != ${expectedMime}`);
        expect(extname(media.path), row.file).toBe(extensionForMimeType(media.mimeType) ?? '.bin');
      } finally {
        await media.dispose();
      }
    }
    expect(mismatches).toEqual([]);
  });
});
