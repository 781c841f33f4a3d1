/**
 * `happy-media encrypt` / `decrypt` as a user runs them (the built CLI in a child process): round trips
 * through files and stdin/stdout, key sources, ranges, v1, and the all-or-nothing rule: after any
 * failure exit 1, no OUT, no temp file, and the key never printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decryptBlob,
  encryptBlob,
  mediaBlobContext,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { toBase64 } from '../../../src/core/bytes.js';
import { decryptV1Blob } from '../../../src/core/happy/index.js';
import { testBytes } from '../../core/blob/blob-test-utils.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

const key = testBytes(32, 41);
const keyB64 = toBase64(key);
const plaintext = testBytes(3 * 16384 + 999, 42);
let dir: string;
let cleanup: () => Promise<void>;
const p = (name: string) => join(dir, name);

/** Runs the CLI with binary stdin and returns stdout as bytes (runCli decodes stdout as text). */
function runBinary(args: string[], input: Uint8Array, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args], {
    input,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: new Uint8Array(r.stdout), stderr: r.stderr.toString('utf8') };
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('happy-media-blob-cli-'));
  await writeFile(p('plain.bin'), plaintext);
  await writeFile(p('key.b64'), `${keyB64}\n`);
  await chmod(p('key.b64'), 0o600);
});
afterAll(() => cleanup());

describe('happy-media encrypt / decrypt', () => {
  it('round-trips a file with --key, --key-file and $HAPPY_MEDIA_KEY', async () => {
    let r = await runCli(['encrypt', '--key', keyB64, p('plain.bin'), p('a.blob')]);
    expect(r.code, r.stderr).toBe(0);
    const blob = await readFile(p('a.blob'));
    expect(
      Buffer.from(await decryptBlob(blob, key, { context: unboundBlobContext() })).equals(
        Buffer.from(plaintext),
      ),
    ).toBe(true);
    r = await runCli(['decrypt', '--key-file', p('key.b64'), p('a.blob'), p('a.out')]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('a.out'))).equals(Buffer.from(plaintext))).toBe(true);
    r = await runCli(['decrypt', p('a.blob'), p('b.out')], { env: { HAPPY_MEDIA_KEY: keyB64 } });
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('b.out'))).equals(Buffer.from(plaintext))).toBe(true);
  });

  it('--ref binds the blob to a ref: decrypt needs that ref; without --ref both sides use the unbound context', async () => {
    const A = 'media/cliref0000000000000000a';
    const B = 'media/cliref0000000000000000b';
    let r = await runCli(['encrypt', '--key-file', p('key.b64'), '--ref', A, p('plain.bin'), p('ref.blob')]);
    expect(r.code, r.stderr).toBe(0);
    const blob = await readFile(p('ref.blob'));
    expect(
      Buffer.from(await decryptBlob(blob, key, { context: mediaBlobContext(A) })).equals(
        Buffer.from(plaintext),
      ),
    ).toBe(true);
    // The ref it was bound to opens it (whole, by range, with threads); another ref or none does not.
    r = await runCli(['decrypt', '--key-file', p('key.b64'), '--ref', A, p('ref.blob'), p('ref.out')]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('ref.out'))).equals(Buffer.from(plaintext))).toBe(true);
    r = await runCli([
      'decrypt',
      '--key-file',
      p('key.b64'),
      '--ref',
      A,
      '--offset',
      '20000',
      '--length',
      '10',
      p('ref.blob'),
      p('ref.part'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('ref.part'))).equals(Buffer.from(plaintext.subarray(20000, 20010)))).toBe(true);
    r = await runCli([
      'decrypt',
      '--key-file',
      p('key.b64'),
      '--ref',
      A,
      '--threads',
      '2',
      p('ref.blob'),
      p('ref.t2'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const args of [['--ref', B], []]) {
      r = await runCli(['decrypt', '--key-file', p('key.b64'), ...args, p('ref.blob'), p('ref.bad')]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain('ERR_DECRYPTION_FAILED');
      await expect(stat(p('ref.bad'))).rejects.toMatchObject({ code: 'ENOENT' });
    }
    // Usage errors (exit 2): a ref that is not media/<id>, --ref with --context-hex or with --format v1.
    for (const args of [
      ['--ref', 'media/../x'],
      ['--ref', A, '--context-hex', '00'],
      ['--ref', A, '--format', 'v1'],
    ]) {
      r = await runCli(['encrypt', '--key-file', p('key.b64'), ...args, p('plain.bin'), p('ref.usage')]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('ERR_USAGE');
    }
  });

  it('--threads 2 (the path large files take): the same blob format, decrypted by either path, also to stdout', async () => {
    let r = await runCli(['encrypt', '--key', keyB64, '--threads', '2', p('plain.bin'), p('t.blob')]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      Buffer.from(
        await decryptBlob(await readFile(p('t.blob')), key, { context: unboundBlobContext() }),
      ).equals(Buffer.from(plaintext)),
    ).toBe(true);
    r = await runCli(['decrypt', '--key', keyB64, '--threads', '2', p('a.blob'), p('t.out')]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('t.out'))).equals(Buffer.from(plaintext))).toBe(true);
    const out = runBinary(
      ['decrypt', '--key', keyB64, '--threads', '2', p('t.blob'), '-'],
      new Uint8Array(0),
    );
    expect(out.code, out.stderr).toBe(0);
    expect(Buffer.from(out.stdout).equals(Buffer.from(plaintext))).toBe(true);
    r = await runCli(['encrypt', '--key', keyB64, '--threads', 'many', p('plain.bin'), p('t2.blob')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--threads/);
  });

  it('streams stdin to stdout both ways, with an explicit context', () => {
    const enc = runBinary(['encrypt', '--context-hex', '6162', '-', '-'], plaintext, {
      HAPPY_MEDIA_KEY: keyB64,
    });
    expect(enc.code, enc.stderr).toBe(0);
    const dec = runBinary(['decrypt', '--context-hex', '6162', '-', '-'], enc.stdout, {
      HAPPY_MEDIA_KEY: keyB64,
    });
    expect(dec.code, dec.stderr).toBe(0);
    expect(Buffer.from(dec.stdout).equals(Buffer.from(plaintext))).toBe(true);
    const wrongContext = runBinary(['decrypt', '-', '-'], enc.stdout, { HAPPY_MEDIA_KEY: keyB64 });
    expect(wrongContext.code).toBe(1);
    expect(wrongContext.stdout.length).toBe(0);
    expect(wrongContext.stderr).toMatch(/ERR_DECRYPTION_FAILED/);
  });

  it('decrypts a range with --offset/--length', async () => {
    const r = await runCli([
      'decrypt',
      '--key-file',
      p('key.b64'),
      '--offset',
      '16000',
      '--length',
      '20000',
      p('a.blob'),
      p('r.out'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('r.out'))).equals(Buffer.from(plaintext.subarray(16000, 36000)))).toBe(true);
  });

  it('speaks Happy v1 blobs with --format v1', async () => {
    let r = await runCli([
      'encrypt',
      '--format',
      'v1',
      '--key-file',
      p('key.b64'),
      p('plain.bin'),
      p('v1.blob'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const v1 = await readFile(p('v1.blob'));
    expect(v1.length).toBe(plaintext.length + 40);
    expect(Buffer.from(decryptV1Blob(v1, key)).equals(Buffer.from(plaintext))).toBe(true);
    r = await runCli(['decrypt', '--format', 'v1', '--key-file', p('key.b64'), p('v1.blob'), p('v1.out')]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(p('v1.out'))).equals(Buffer.from(plaintext))).toBe(true);
    // A v1 blob is not a v2 blob, and the other way round.
    r = await runCli(['decrypt', '--key-file', p('key.b64'), p('v1.blob'), p('v1-as-v2.out')]);
    expect(r.code).toBe(1);
    await expect(stat(p('v1-as-v2.out'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('tampered blobs: exit 1, ERR_DECRYPTION_FAILED, no OUT, no temp file, no key in the output', async () => {
    const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const variants: [string, Uint8Array][] = [];
    const flip = (name: string, at: number) => {
      const b = blob.slice();
      b[at] = (b[at] as number) ^ 0x80;
      variants.push([name, b]);
    };
    flip('salt', 0);
    flip('commitment', 30);
    flip('chunk 1', 56 + 16400 + 100);
    flip('final chunk', 56 + 3 * 16400 + 5);
    flip('last tag', blob.length - 1);
    variants.push(['truncated at boundary', blob.subarray(0, 56 + 2 * 16400)]);
    variants.push(['truncated mid-chunk', blob.subarray(0, 56 + 16400 + 77)]);
    variants.push(['appended', new Uint8Array([...blob, 1, 2, 3])]);
    const swapped = blob.slice();
    swapped.set(blob.subarray(56, 56 + 16400), 56 + 16400);
    swapped.set(blob.subarray(56 + 16400, 56 + 2 * 16400), 56);
    variants.push(['swapped', swapped]);
    for (const [i, [name, bytes]] of variants.entries()) {
      await writeFile(p(`bad${i}.blob`), bytes);
      // Every variant through the streaming path; the ones random access must catch up front (damaged
      // final chunk, bad length, bad header) through a ranged read of chunk 0 too.
      const ranged = /^(commitment|last tag|truncated at|appended)/.test(name);
      // And the worker-thread path (forced with --threads; large files take it by default) where it differs.
      const threaded = /^(chunk 1|last tag|truncated at|swapped)/.test(name);
      const runs = [
        [],
        ...(ranged ? [['--offset', '0', '--length', '10']] : []),
        ...(threaded ? [['--threads', '2']] : []),
      ];
      for (const extra of runs) {
        const r = await runCli(['decrypt', '--key', keyB64, ...extra, p(`bad${i}.blob`), p(`bad${i}.out`)]);
        expect(r.code, `${name} ${extra.join(' ')}`).toBe(1);
        expect(r.stderr).toMatch(/^happy-media: ERR_DECRYPTION_FAILED: /);
        expect(r.stderr).not.toContain(keyB64);
        expect(r.stdout).toBe('');
        await expect(stat(p(`bad${i}.out`)), name).rejects.toMatchObject({ code: 'ENOENT' });
      }
    }
    const wrong = toBase64(testBytes(32, 99));
    const r = await runCli(['decrypt', '--key', wrong, p('a.blob'), p('wrong.out')]);
    expect(r.code).toBe(1);
    await expect(stat(p('wrong.out'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
    // Each run is a CLI start (~0.3 s idle, seconds on a loaded 2-core machine).
  }, 300_000);

  it('bad usage exits 2 without echoing the key', async () => {
    const cases: string[][] = [
      ['encrypt', p('plain.bin'), p('x')],
      ['encrypt', '--key', 'not base64!', p('plain.bin'), p('x')],
      ['encrypt', '--key', keyB64, '--key-file', p('key.b64'), p('plain.bin'), p('x')],
      ['encrypt', '--key', keyB64, '--format', 'v3', p('plain.bin'), p('x')],
      ['encrypt', '--key', keyB64, '--context-hex', 'abc', p('plain.bin'), p('x')],
      ['decrypt', '--key', keyB64, '--offset', '-1', p('a.blob'), p('x')],
      ['decrypt', '--key', keyB64, '--offset', '5', '-', p('x')],
      ['decrypt', '--key', keyB64],
    ];
    for (const args of cases) {
      const r = await runCli(args, { env: { HAPPY_MEDIA_KEY: '' } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/ERR_USAGE/);
      expect(r.stderr).not.toContain(keyB64);
      await expect(stat(p('x'))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  }, 300_000);

  it('refuses a device or pipe as IN unless --max-bytes bounds it; stdin is bounded by --max-bytes', async () => {
    // /dev/zero never ends: without the refusal this run would only stop at the disk limit.
    let r = await runCli(['encrypt', '--key', keyB64, '/dev/zero', p('zero.blob')], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^happy-media: ERR_UNREADABLE_INPUT: .*--max-bytes/);
    r = await runCli(['encrypt', '--key', keyB64, '--max-bytes', '100000', '/dev/zero', p('zero.blob')], {
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/ERR_LIMIT_EXCEEDED/);
    const piped = runBinary(['encrypt', '--max-bytes', '1000', '-', p('stdin.blob')], new Uint8Array(1001), {
      HAPPY_MEDIA_KEY: keyB64,
    });
    expect(piped.code, piped.stderr).toBe(1);
    expect(piped.stderr).toMatch(/ERR_LIMIT_EXCEEDED/);
    const fits = runBinary(['encrypt', '--max-bytes', '1000', '-', p('stdin.blob')], new Uint8Array(1000), {
      HAPPY_MEDIA_KEY: keyB64,
    });
    expect(fits.code, fits.stderr).toBe(0);
    await expect(stat(p('zero.blob'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 120_000);

  it('a missing input file is ERR_DISK with exit 1 and no output', async () => {
    const r = await runCli(['encrypt', '--key', keyB64, p('missing'), p('m.blob')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ERR_DISK/);
    await expect(stat(p('m.blob'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

/**
 * An OUT that exists and is not a regular file is never replaced (issue 24, item 1): a device or FIFO
 * is written through after full verification, a symbolic link's target is what gets written, and a
 * directory or dangling link is refused. Before, the temp file was renamed over whatever OUT was.
 */
describe('OUT that is not a regular file', () => {
  let blob: string;
  beforeAll(async () => {
    blob = p('out-kinds.blob');
    const r = await runCli(['encrypt', '--key', keyB64, p('plain.bin'), blob]);
    expect(r.code, r.stderr).toBe(0);
  });

  /** A FIFO under the test dir with a `cat` reading it into `sink`; `done` resolves when cat ends. */
  function fifoWithReader(name: string) {
    const fifo = p(name);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('sh', ['-c', 'exec cat "$0" > "$1"', fifo, `${fifo}.read`], { stdio: 'ignore' });
    const done = new Promise<number | null>((resolve) => reader.on('close', resolve));
    return { fifo, read: `${fifo}.read`, done, stop: () => reader.kill('SIGKILL') };
  }

  it('decrypt into a FIFO writes the verified plaintext through it; the FIFO stays a FIFO', async () => {
    const pipe = fifoWithReader('plain.fifo');
    try {
      const r = await runCli(['decrypt', '--key', keyB64, blob, pipe.fifo]);
      expect(r.code, r.stderr).toBe(0);
      expect((await lstat(pipe.fifo)).isFIFO()).toBe(true);
      await pipe.done;
      expect((await readFile(pipe.read)).equals(Buffer.from(plaintext))).toBe(true);
    } finally {
      pipe.stop();
    }
  });

  it('a tampered blob writes nothing into the FIFO, and encrypt writes through it too', async () => {
    const bad = Buffer.from(await readFile(blob));
    bad[bad.length - 5]! ^= 1;
    await writeFile(p('bad-fifo.blob'), bad);
    const pipe = fifoWithReader('bad.fifo');
    try {
      const r = await runCli(['decrypt', '--key', keyB64, p('bad-fifo.blob'), pipe.fifo]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ERR_DECRYPTION_FAILED/);
      expect((await lstat(pipe.fifo)).isFIFO()).toBe(true);
      // The reader is still waiting for a writer: nothing was opened, let alone written.
      const e = await runCli(['encrypt', '--key', keyB64, p('plain.bin'), pipe.fifo]);
      expect(e.code, e.stderr).toBe(0);
      await pipe.done;
      const sent = await readFile(pipe.read);
      expect(
        Buffer.from(await decryptBlob(sent, key, { context: unboundBlobContext() })).equals(
          Buffer.from(plaintext),
        ),
      ).toBe(true);
    } finally {
      pipe.stop();
    }
  });

  /**
   * `/dev/<name>`, or as root a private copy of it under the test dir: run as root, a regression (the
   * old code) would replace the machine's real device node with a plaintext file.
   */
  function device(name: 'null' | 'full'): string {
    if (process.getuid?.() !== 0) return `/dev/${name}`;
    const copy = p(`dev-${name}`);
    const minor = name === 'null' ? '3' : '7';
    expect(spawnSync('mknod', ['-m', '666', copy, 'c', '1', minor]).status).toBe(0);
    return copy;
  }

  it('a character device is written through and stays a device (/dev/null)', async () => {
    const target = device('null');
    const before = await lstat(target);
    const r = await runCli(['decrypt', '--key', keyB64, blob, target]);
    expect(r.code, r.stderr).toBe(0);
    const after = await lstat(target);
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
  });

  it('/dev/full as OUT or as stdout is ERR_DISK (ENOSPC) in one line, exit 1, no stack trace', async () => {
    const full = device('full');
    for (const args of [
      ['decrypt', '--key', keyB64, blob, full],
      [
        'sh',
        '-c',
        `exec "$0" "$1" decrypt --key ${keyB64} "$2" - > /dev/full`,
        process.execPath,
        CLI_BIN,
        blob,
      ],
      [
        'sh',
        '-c',
        `exec "$0" "$1" encrypt --key ${keyB64} "$2" - > /dev/full`,
        process.execPath,
        CLI_BIN,
        p('plain.bin'),
      ],
    ]) {
      const r =
        args[0] === 'sh'
          ? spawnSync(args[0], args.slice(1), { encoding: 'utf8', timeout: 60_000 })
          : spawnSync(process.execPath, [CLI_BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^happy-media: ERR_DISK: could not write to (stdout|".*full") \(ENOSPC\)/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a symbolic link to a file: the target is replaced, the link stays; a dangling link and a directory are refused', async () => {
    await writeFile(p('target.out'), 'old');
    await symlink(p('target.out'), p('link.out'));
    let r = await runCli(['decrypt', '--key', keyB64, blob, p('link.out')]);
    expect(r.code, r.stderr).toBe(0);
    expect((await lstat(p('link.out'))).isSymbolicLink()).toBe(true);
    expect((await readFile(p('target.out'))).equals(Buffer.from(plaintext))).toBe(true);

    await symlink(p('nowhere'), p('dangling.out'));
    r = await runCli(['decrypt', '--key', keyB64, blob, p('dangling.out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ERR_DISK: will not write to .*dangling\.out.*symbolic link to nothing/);
    expect((await lstat(p('dangling.out'))).isSymbolicLink()).toBe(true);
    await expect(stat(p('nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });

    await mkdir(p('a-dir'));
    r = await runCli(['encrypt', '--key', keyB64, p('plain.bin'), p('a-dir')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ERR_DISK: will not write to .*a-dir.*a directory/);
    expect((await lstat(p('a-dir'))).isDirectory()).toBe(true);
  });
});
