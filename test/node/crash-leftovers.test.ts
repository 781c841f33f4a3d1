/**
 * Crash leftovers (issue 14.1): a CLI killed with SIGKILL mid-way cannot clean up, so the next run must.
 * Each case stops a real `happy-media` process at a known point (its input is a FIFO that we feed only
 * part of the blob, or a store upload whose body stalls), kills it with SIGKILL, checks that the
 * leftover is really there, runs another command, and checks that the leftover is gone.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, open, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, unboundBlobContext } from '../../src/core/blob/index.js';
import { toBase64 } from '../../src/core/bytes.js';
import { testBytes } from '../core/blob/blob-test-utils.js';
import { CLI_BIN, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tmp.js';

const key = testBytes(32, 71);
const env = { HAPPY_MEDIA_KEY: toBase64(key) };
// More chunks than one write batch (256 KiB, the output is written behind the engine in batches), so a
// stalled decrypt has verified plaintext on disk.
const plaintext = testBytes(40 * 16384 + 77, 72);
let blob: Uint8Array;
let tmp: { dir: string; cleanup: () => Promise<void> };
const p = (name: string) => join(tmp.dir, name);
// Where the CLI records files it writes outside its private directories (its own, not the user's).
let stateHome: string;

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-crash-');
  stateHome = p('state');
  blob = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
  await writeFile(p('whole.blob'), blob);
});
afterAll(() => tmp.cleanup());

/** Polls until `find` returns a value (the child got to the point we wait for), or fails after 30 s. */
async function waitFor<T>(find: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 3000; i++) {
    const found = await find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A file under `dir` whose name matches and that already holds bytes. */
async function nonEmptyEntry(dir: string, pattern: RegExp): Promise<string | undefined> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!pattern.test(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && info.size > 0) return path;
    if (info?.isDirectory()) {
      const inner = await nonEmptyEntry(path, /./);
      if (inner) return inner;
    }
  }
  return undefined;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts `happy-media decrypt FIFO out` and feeds the FIFO 20 of the blob's 41 chunks, then stalls. */
async function startStalledDecrypt(out: string, tempRoot: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const fifo = p(`in-${Math.random().toString(36).slice(2)}.fifo`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const child = spawn(process.execPath, [CLI_BIN, 'decrypt', fifo, out], {
    env: { ...process.env, ...env, XDG_STATE_HOME: stateHome, TMPDIR: tempRoot, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const writer = await open(fifo, 'w');
  await writer.write(blob.subarray(0, 56 + 20 * (16384 + 16)));
  return { child, writer };
}

describe('leftovers of a killed CLI are removed by the next run', () => {
  it('decrypt IN -: the plaintext under $TMPDIR goes at the start of any next command', async () => {
    const tempRoot = p('tmp-stdout');
    await mkdir(tempRoot);
    const { child, writer } = await startStalledDecrypt('-', tempRoot);
    const leftover = await waitFor(
      () => nonEmptyEntry(tempRoot, /^happy-media-output-/),
      'the plaintext temp file',
    );
    await killed(child);
    await writer.close();
    expect((await stat(leftover)).size).toBeGreaterThan(0);

    const next = await runCli(['keygen'], { env: { TMPDIR: tempRoot } });
    expect(next.code, next.stderr).toBe(0);
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('decrypt IN OUT: the verified plaintext beside OUT goes at the start of any next command', async () => {
    const outDir = p('out');
    await mkdir(outDir);
    const { child, writer } = await startStalledDecrypt(join(outDir, 'clip.mp4'), tmp.dir);
    const leftover = await waitFor(() => nonEmptyEntry(outDir, /^\.clip\.mp4\..*\.partial$/), 'OUT.partial');
    await killed(child);
    await writer.close();
    expect((await stat(leftover)).size).toBeGreaterThan(0);

    // A command that never looks at OUT's directory still finds it (through the pending-file record).
    const next = await runCli(['keygen'], { env: { XDG_STATE_HOME: stateHome } });
    expect(next.code, next.stderr).toBe(0);
    expect(await readdir(outDir)).toEqual([]);
  });

  it('decrypt IN OUT: the leftover also goes when the next run writes into that directory', async () => {
    const outDir = p('out-2');
    await mkdir(outDir);
    const { child, writer } = await startStalledDecrypt(join(outDir, 'clip.mp4'), tmp.dir, {
      XDG_STATE_HOME: p('state-unused'),
    });
    await waitFor(() => nonEmptyEntry(outDir, /^\.clip\.mp4\..*\.partial$/), 'OUT.partial');
    await killed(child);
    await writer.close();

    const next = await runCli(['decrypt', p('whole.blob'), join(outDir, 'other.mp4')], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(await readdir(outDir)).toEqual(['other.mp4']);
  });

  it('a killed upload into a local store: its .partial goes on the next put', async () => {
    const storeDir = p('store');
    // A process whose upload stalls after 3 MiB of 8 (past the store's 1 MiB write buffer), as a killed
    // `send` does mid-upload; the interval keeps it alive while the body waits.
    const dist = fileURLToPath(new URL('../../dist/src/', import.meta.url));
    const script = `
      setInterval(() => {}, 1000);
      const { LocalBlobStore } = await import(${JSON.stringify(`${dist}node/storage/index.js`)});
      const body = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(3 << 20)); } });
      await new LocalBlobStore(${JSON.stringify(storeDir)}).put('media/stalled', body, 8 << 20);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    const leftover = await waitFor(() => nonEmptyEntry(join(storeDir, '.partial'), /stalled/), 'the partial');
    await killed(child);
    expect((await stat(leftover)).size).toBeGreaterThan(0);

    await writeFile(p('note.txt'), 'hello');
    const next = await runCli(['send', p('note.txt'), '--store', storeDir], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(await readdir(join(storeDir, '.partial'))).toEqual([]);
    expect(await readdir(join(storeDir, 'media'))).toHaveLength(1);
  });
});
