/**
 * The private-file module: owner-stamped names, the crash-sweep rules, all-or-nothing writes and spools.
 * A dead owner is a real process that has exited (its pid is free), not a made-up number.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskError, InvalidArgumentError } from '../../../src/core/errors.js';
import { AtomicFileWriter } from '../../../src/node/fs/atomic-file.js';
import { diskError } from '../../../src/node/fs/disk-error.js';
import { writeFileAllOrNothing } from '../../../src/node/fs/output-file.js';
import { newOwnerStamp, parseOwnerStamp } from '../../../src/node/fs/owner-stamp.js';
import { sweepPendingRecords } from '../../../src/node/fs/pending-record.js';
import { createPrivateDirectory } from '../../../src/node/fs/private-dir.js';
import { spoolToPrivateFile } from '../../../src/node/fs/spool.js';
import {
  PARTIAL_FILE_NAMES,
  sweepStale,
  TEMP_DIR_NAMES,
  UNSTAMPED_MAX_AGE_MS,
} from '../../../src/node/fs/sweep.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
let deadPid: number;

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-fs-');
  // A child that prints its pid and exits: afterwards that pid belongs to no process (until reused).
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  deadPid = Number(child.stdout.toString());
});
afterAll(() => tmp.cleanup());

/** A stamp as another process would have made it. */
function stampOf(pid: number): string {
  return newOwnerStamp().replace(/^\d+-/, `${pid}-`);
}

describe('owner stamps', () => {
  it('round-trip pid and creation time, and reject other text', () => {
    const before = Date.now();
    const parsed = parseOwnerStamp(newOwnerStamp());
    expect(parsed?.pid).toBe(process.pid);
    expect(parsed?.createdMs).toBeGreaterThanOrEqual(before);
    expect(parseOwnerStamp('123-abc')).toBeUndefined();
    expect(parseOwnerStamp(`x${newOwnerStamp()}`)).toBeUndefined();
  });
});

describe('sweepStale', () => {
  it('removes a dead owner’s entries, keeps a live owner’s, and removes unstamped ones only when old', async () => {
    const dir = join(tmp.dir, 'sweep');
    await mkdir(dir);
    const dead = `happy-media-decrypt-${stampOf(deadPid)}`;
    const live = `happy-media-decrypt-${newOwnerStamp()}`;
    const oldUnstamped = 'happy-media-send-Ab12Cd';
    const newUnstamped = 'happy-media-probe-Xy34Zw';
    const foreign = `happy-media-test-${stampOf(deadPid)}x`;
    for (const name of [dead, live, oldUnstamped, newUnstamped]) await mkdir(join(dir, name));
    await writeFile(join(dir, dead, 'plaintext'), 'secret');
    await writeFile(join(dir, foreign), '');
    const old = (Date.now() - UNSTAMPED_MAX_AGE_MS - 60_000) / 1000;
    await utimes(join(dir, oldUnstamped), old, old);

    expect(sweepStale(dir, TEMP_DIR_NAMES)).toBe(2);
    expect((await readdir(dir)).sort()).toEqual([foreign, live, newUnstamped].sort());
  });

  it('sweeps `.partial` files beside outputs by the same rules', async () => {
    const dir = join(tmp.dir, 'beside');
    await mkdir(dir);
    const dead = `.clip.mp4.${stampOf(deadPid)}.partial`;
    const live = `.clip.mp4.${newOwnerStamp()}.partial`;
    for (const name of [dead, live, 'clip.mp4', '.clip.mp4.partial']) await writeFile(join(dir, name), 'x');
    expect(sweepStale(dir, PARTIAL_FILE_NAMES)).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['.clip.mp4.partial', live, 'clip.mp4'].sort());
  });

  it('never throws for a missing directory', () => {
    expect(sweepStale(join(tmp.dir, 'absent'), TEMP_DIR_NAMES)).toBe(0);
  });
});

describe('sweepPendingRecords', () => {
  it('removes a dead owner’s recorded temp file, and nothing a record names that does not carry its stamp', async () => {
    const records = join(tmp.dir, 'records');
    const files = join(tmp.dir, 'recorded');
    await mkdir(records);
    await mkdir(files);
    const dead = stampOf(deadPid);
    const forged = stampOf(deadPid);
    const live = newOwnerStamp();
    const deadFile = join(files, `.clip.mp4.${dead}.partial`);
    const victim = join(files, 'precious.txt');
    const liveFile = join(files, `.clip.mp4.${live}.partial`);
    for (const path of [deadFile, victim, liveFile]) await writeFile(path, 'x');
    await writeFile(join(records, dead), deadFile);
    await writeFile(join(records, forged), victim);
    await writeFile(join(records, live), liveFile);

    expect(sweepPendingRecords(records)).toBe(1);
    expect((await readdir(files)).sort()).toEqual(
      [liveFile, victim].map((f) => f.slice(files.length + 1)).sort(),
    );
    expect(await readdir(records)).toEqual([live]);
  });
});

describe('private files', () => {
  it('a private directory is 0700 and owner-stamped; the atomic writer is 0600 and publishes on commit', async () => {
    const dir = await createPrivateDirectory(tmp.dir, 'happy-media-unit-');
    expect(TEMP_DIR_NAMES.stamped.test(dir.path.slice(tmp.dir.length + 1))).toBe(true);
    expect((await stat(dir.path)).mode & 0o777).toBe(0o700);
    const writer = await AtomicFileWriter.create(dir.path, { label: 'out.bin' });
    expect((await stat(writer.partialPath)).mode & 0o777).toBe(0o600);
    await writer.write(new Uint8Array([1, 2, 3]).subarray(1));
    await writer.commit(join(dir.path, 'out.bin'));
    expect(await readdir(dir.path)).toEqual(['out.bin']);
    expect([...(await readFile(join(dir.path, 'out.bin')))]).toEqual([2, 3]);
    await dir.remove();
    await expect(stat(dir.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writeFileAllOrNothing leaves nothing when the fill fails, and keeps its error', async () => {
    const dir = join(tmp.dir, 'all-or-nothing');
    await mkdir(dir);
    const failure = new InvalidArgumentError('bad');
    await expect(
      writeFileAllOrNothing(join(dir, 'out'), async (out) => {
        await out.write(new Uint8Array(10));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a spool gives ERR_INVALID_ARGUMENT for a stream shorter or longer than announced', async () => {
    for (const expectedSize of [9, 11]) {
      const stream = new Blob([new Uint8Array(10)]).stream();
      await expect(spoolToPrivateFile(stream, { expectedSize })).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
    }
    const spooled = await spoolToPrivateFile(new Blob([new Uint8Array(10)]).stream(), { expectedSize: 10 });
    expect(spooled.size).toBe(10);
    await spooled.cleanup();
    await expect(stat(spooled.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('diskError names the action, path and errno code, and passes library errors through', () => {
    const wrapped = diskError('read', Object.assign(new Error('x'), { code: 'EACCES' }), '/a/b');
    expect(wrapped).toBeInstanceOf(DiskError);
    expect(wrapped.message).toContain('"/a/b"');
    expect(wrapped.message).toContain('EACCES');
    const own = new InvalidArgumentError('mine');
    expect(diskError('read', own)).toBe(own);
  });
});
