/**
 * Cleanup on process exit: a child process opens media (built package, as a user would) and exits
 * without dispose(); its private plaintext directory must be gone. A child killed with SIGKILL cannot
 * clean up; the next open under the same temp root sweeps its leftovers.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes, toBase64 } from '../../../src/core/bytes.js';
import { openMedia } from '../../../src/node/playback/index.js';
import { TEMP_DIR_PREFIX } from '../../../src/node/playback/open-media.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { pseudoRandomBytes } from './helpers/samples.js';

// The built modules this test needs (not the whole node entry, so other layers' state does not matter here).
const DIST = fileURLToPath(new URL('../../../dist/src/', import.meta.url));
const key = randomBytes(32);
const REF = 'media/exittest0000000000000000';
let tmp: { dir: string; cleanup: () => Promise<void> };
let storeDir: string;

// The child: opens, prints the path, then ends the way argv[4] says. The key travels in the environment,
// never in argv.
const CHILD = `
const [dist, store, ref, tempRoot, how] = process.argv.slice(1);
const { openMedia } = await import(dist + 'node/playback/index.js');
const { LocalBlobStore } = await import(dist + 'node/storage/index.js');
const { fromBase64 } = await import(dist + 'core/bytes.js');
const media = await openMedia({ ref, mimeType: 'video/mp4' }, { store: new LocalBlobStore(store), blobKey: fromBase64(process.env.TEST_BLOB_KEY), tempRoot });
process.stdout.write(media.path + '\\n');
if (how === 'exit') process.exit(0);
if (how === 'wait') setInterval(() => {}, 1000);
`;

function runChild(tempRoot: string, how: 'exit' | 'natural' | 'wait') {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', CHILD, DIST, storeDir, REF, tempRoot, how],
    {
      env: { ...process.env, TEST_BLOB_KEY: toBase64(key) },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const path = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => reject(new Error(`child ended without a path: ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, path, exited };
}

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-exit-');
  storeDir = join(tmp.dir, 'blobs');
  const ct = await encryptBlob(pseudoRandomBytes(300_000, 4), key, { context: mediaBlobContext(REF) });
  await new LocalBlobStore(storeDir).put(REF, new Blob([ct as Uint8Array<ArrayBuffer>]).stream(), ct.length);
});
afterAll(() => tmp.cleanup());

describe('cleanup at exit', () => {
  for (const how of ['exit', 'natural'] as const) {
    it(`removes the private directory when the process ends (${how === 'exit' ? 'process.exit' : 'event loop drains'})`, async () => {
      const root = join(tmp.dir, `root-${how}`);
      await mkdir(root);
      const run = runChild(root, how);
      const path = await run.path;
      expect(path.startsWith(join(root, TEMP_DIR_PREFIX))).toBe(true);
      expect(await run.exited).toBe(0);
      await expect(stat(dirname(path))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readdir(root)).toEqual([]);
    });
  }

  it('sweeps the leftovers of a killed process on the next open under the same root', async () => {
    const root = join(tmp.dir, 'root-kill');
    await mkdir(root);
    const run = runChild(root, 'wait');
    const path = await run.path;
    run.child.kill('SIGKILL');
    await run.exited;
    expect((await stat(path)).isFile()).toBe(true); // SIGKILL: no exit hook ran
    const media = await openMedia(
      { ref: REF },
      { store: new LocalBlobStore(storeDir), blobKey: key, tempRoot: root },
    );
    await expect(stat(dirname(path))).rejects.toMatchObject({ code: 'ENOENT' });
    await media.dispose();
    expect(await readdir(root)).toEqual([]);
  });
});
