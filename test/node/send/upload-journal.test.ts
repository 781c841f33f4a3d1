/**
 * The Node journal of resumable sends: one private record per file and store location (0700 directory,
 * 0600 records, named by a hash so no path or location shows), saved whole or not at all, locked to one
 * live send (a killed owner's lock is taken over), and swept after 7 days untouched.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadRecord } from '../../../src/core/send/media-upload.js';
import { newOwnerStamp } from '../../../src/node/fs/owner-stamp.js';
import {
  type OpenedJournal,
  openUploadJournal,
  STALE_RECORD_MS,
} from '../../../src/node/send/upload-journal.js';
import { makeTempDir } from '../../helpers/tmp.js';

const record: UploadRecord = {
  version: 1,
  stamp: { size: 10, mtimeMs: 1 },
  message: { id: 'c1abcdefghijklmnopqrstuv', time: 1 },
  parts: { salt: 'AAAA', binding: 'AAAA', chunksPerPart: 1, sent: [null] },
};

describe('the upload journal (Node)', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let file: string;
  let dir: string;
  beforeAll(async () => {
    tmp = await makeTempDir();
    file = join(tmp.dir, 'clip.bin');
    await writeFile(file, 'ten bytes!');
    dir = join(tmp.dir, 'state', 'uploads');
  });
  afterAll(async () => tmp?.cleanup());

  const open = async (location = 'https://happy.example/v1/sessions/s1/attachments') =>
    (await openUploadJournal(file, location, dir)) as OpenedJournal;

  it('keeps one private record per file and location, named by a hash; one send at a time', async () => {
    const opened = await open();
    expect(opened.stamp.size).toBe(10);
    expect(await opened.journal.load()).toBeUndefined();
    await opened.journal.save(record);
    expect(await opened.journal.load()).toEqual(record);
    const names = (await readdir(dir)).sort();
    expect(names).toHaveLength(2);
    for (const name of names) {
      expect(name).toMatch(/^[0-9a-f]{64}\.(json|lock)$/);
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    // The same file to the same place, while the first send runs: no journal, and why.
    const second = await openUploadJournal(file, 'https://happy.example/v1/sessions/s1/attachments', dir);
    expect('why' in second && second.why).toMatch(/another send of this file/);
    // To another place: a journal of its own.
    const elsewhere = await open('https://happy.example/v1/sessions/s2/attachments');
    expect(await elsewhere.journal.load()).toBeUndefined();
    await elsewhere.close();
    await opened.close();
    // Released: the next send of the file finds the record.
    const again = await open();
    expect(await again.journal.load()).toEqual(record);
    await again.journal.remove();
    expect(await again.journal.load()).toBeUndefined();
    await again.close();
  });

  it('takes over the lock of a killed send, and sweeps records untouched for a week', async () => {
    const opened = await open();
    await opened.journal.save(record);
    await opened.close();
    const [name] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    // A lock left by a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const deadStamp = newOwnerStamp().replace(/^\d+/, String(gone));
    await writeFile(join(dir, (name as string).replace('.json', '.lock')), deadStamp);
    const taken = await open();
    expect(await taken.journal.load()).toEqual(record);
    await taken.close();
    // Untouched for more than the stale age: swept when a journal is next opened.
    const old = (Date.now() - STALE_RECORD_MS - 60_000) / 1000;
    await utimes(join(dir, name as string), old, old);
    const fresh = await open();
    expect(await fresh.journal.load()).toBeUndefined();
    await fresh.close();
    expect(await readFile(join(dir, name as string)).catch(() => 'gone')).toBe('gone');
  });
});
