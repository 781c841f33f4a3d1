import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolToPrivateFile } from '../../../src/node/fs/spool.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { sample, samplesDir } from './samples.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
let previousTmpdir: string | undefined;

beforeAll(async () => {
  await samplesDir();
  tmp = await makeTempDir();
  // Spool files go to os.tmpdir(): point it at a directory of our own to see what is left behind.
  previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = join(tmp.dir, 'spool');
  await mkdir(process.env.TMPDIR);
});
afterAll(async () => {
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  await tmp.cleanup();
});

const leftovers = () => readdir(join(tmp.dir, 'spool'));

describe('probing streams', () => {
  it.each(['jpeg-orientation-6.jpg', 'h264.mp4', 'audio.m4a', 'notes.txt'])(
    '%s as a Web stream gives the same result as the path, under the given name',
    async (name) => {
      const fromPath = await probeMedia(sample(name));
      const web = Readable.toWeb(createReadStream(sample(name))) as ReadableStream<Uint8Array>;
      const fromStream = await probeMedia({ stream: web, name, size: fromPath.size });
      expect(fromStream).toEqual(fromPath);
      expect(await leftovers()).toEqual([]);
    },
  );

  it('accepts a Node stream and sanitises the name it is given', async () => {
    const probe = await probeMedia({
      stream: createReadStream(sample('png-alpha.png')),
      name: '../x/\u202Eevil.png',
    });
    expect(probe).toMatchObject({ kind: 'photo', name: 'evil.png', width: 64, height: 64 });
    expect(await leftovers()).toEqual([]);
  });

  it('rejects a stream whose length differs from `size`, and removes the spool', async () => {
    for (const size of [10, 10_000_000]) {
      await expect(
        probeMedia({ stream: createReadStream(sample('png-alpha.png')), name: 'a.png', size }),
      ).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    }
    expect(await leftovers()).toEqual([]);
  });

  it('removes the spool when the stream fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('network went away'));
      },
    });
    await expect(probeMedia({ stream: failing, name: 'x.bin' })).rejects.toMatchObject({ code: 'ERR_DISK' });
    expect(await leftovers()).toEqual([]);
  });

  it('spools privately: a 0700 directory and a 0600 file with the exact bytes', async () => {
    const spooled = await spoolToPrivateFile(createReadStream(sample('notes.txt')));
    try {
      const { stat } = await import('node:fs/promises');
      expect((await stat(spooled.path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(spooled.path, '..'))).mode & 0o777).toBe(0o700);
      expect(await readFile(spooled.path)).toEqual(await readFile(sample('notes.txt')));
    } finally {
      await spooled.cleanup();
    }
    expect(await leftovers()).toEqual([]);
  });

  it('rejects something that is not an input with ERR_INVALID_ARGUMENT', async () => {
    await expect(probeMedia({ name: 'x' } as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    await expect(probeMedia('')).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
  });
});
