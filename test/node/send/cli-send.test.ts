/** `happy-media send` as a user runs it: one JSON object out, keys kept out of argv, errors as exit codes. */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { toBase64 } from '../../../src/core/bytes.js';
import { dataKey, legacyKey, openMessage } from '../../../src/core/envelope/index.js';
import { parseSessionMessage } from '../../../src/core/protocol/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
const blobKey = new Uint8Array(randomBytes(32));
const sessionSecret = new Uint8Array(randomBytes(32));
let file: string;
const text = 'meeting notes: the launch code is not in here\n'.repeat(100);

beforeAll(async () => {
  tmp = await makeTempDir();
  file = join(tmp.dir, 'notes.txt');
  await writeFile(file, text);
  await writeFile(join(tmp.dir, 'blob.key'), `${toBase64(blobKey)}\n`, { mode: 0o600 });
  await writeFile(join(tmp.dir, 'session.key'), toBase64(sessionSecret), { mode: 0o600 });
});
afterAll(async () => tmp.cleanup());

describe('happy-media send', () => {
  it('prints one JSON object with a valid message and stores the encrypted file', async () => {
    const storeDir = join(tmp.dir, 'blobs');
    const result = await runCli(['send', file, '--store', storeDir, '--turn', 'turn_7'], {
      env: { HAPPY_MEDIA_KEY: toBase64(blobKey) },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0] as string);
    expect(Object.keys(out)).toEqual(['message']);
    expect(out.message).toMatchObject({
      role: 'agent',
      turn: 'turn_7',
      type: 'file',
      name: 'notes.txt',
      size: text.length,
    });
    expect(parseSessionMessage(out.message, { mode: 'strict' }).success).toBe(true);
    const stored = await readFile(new LocalBlobStore(storeDir).pathOf(out.message.ref));
    expect(stored.includes(Buffer.from('launch code'))).toBe(false);
    expect(
      Buffer.from(
        await decryptBlob(new Uint8Array(stored), blobKey, { context: mediaBlobContext(out.message.ref) }),
      ).toString(),
    ).toBe(text);
  });

  it('seals with --seal-key-file in either variant', async () => {
    for (const variant of ['datakey', 'legacy'] as const) {
      const result = await runCli([
        'send',
        file,
        '--store',
        join(tmp.dir, 'blobs'),
        '--key-file',
        join(tmp.dir, 'blob.key'),
        '--seal-key-file',
        join(tmp.dir, 'session.key'),
        '--variant',
        variant,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.envelope.t).toBe('encrypted');
      const key = variant === 'datakey' ? dataKey(sessionSecret) : legacyKey(sessionSecret);
      expect(openMessage(out.envelope, key)).toEqual(out.message);
      expect(out.message.role).toBe('user');
    }
  });

  it('fails with clear codes: no key (2), missing file (1), agent without turn (1)', async () => {
    const store = join(tmp.dir, 'blobs');
    const noKey = await runCli(['send', file, '--store', store], { env: { HAPPY_MEDIA_KEY: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('ERR_USAGE');
    const keyArgs = ['--key-file', join(tmp.dir, 'blob.key')];
    const missing = await runCli(['send', join(tmp.dir, 'nope.bin'), '--store', store, ...keyArgs]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ERR_UNREADABLE_INPUT');
    const noTurn = await runCli(['send', file, '--store', store, ...keyArgs, '--role', 'agent']);
    expect(noTurn.code).toBe(1);
    expect(noTurn.stderr).toContain('ERR_INVALID_ARGUMENT');
    expect(noTurn.stdout).toBe('');
    const badVariant = await runCli(['send', file, '--store', store, ...keyArgs, '--variant', 'datakey']);
    expect(badVariant.code).toBe(2);
  });

  it('a token with CR/LF, --token for a happy+ store and a bad --store are bad usage (exit 2) (issue 24, item 8)', async () => {
    const keyArgs = ['--key-file', join(tmp.dir, 'blob.key')];
    // Before: ERR_INTERNAL (Node's HTTP client threw ERR_INVALID_CHAR on the header).
    const crlf = await runCli(['send', file, '--store', 'http://127.0.0.1:9', ...keyArgs], {
      env: { HAPPY_MEDIA_TOKEN: 'secret\r\nX-Injected: 1' },
    });
    expect(crlf.code).toBe(2);
    expect(crlf.stderr).toMatch(
      /ERR_USAGE: expected a bearer token of visible ASCII characters .* a line break \(CR\/LF\)/,
    );
    expect(crlf.stderr).not.toContain('secret');
    // The README: the account's token is read from HAPPY_MEDIA_TOKEN or --token-file only, never argv.
    const argv = await runCli([
      'send',
      file,
      '--store',
      'happy+http://127.0.0.1:9',
      '--session',
      'cm00000000000000000000000',
      '--token',
      'tok',
      ...keyArgs,
    ]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/ERR_USAGE: --token is not accepted for Happy's server/);
    const noBucket = await runCli(['send', file, '--store', 's3://', ...keyArgs], {
      env: { HAPPY_MEDIA_S3_BUCKET: '' },
    });
    expect(noBucket.code).toBe(2);
    expect(noBucket.stderr).toMatch(/ERR_USAGE: --store: expected s3:\/\/bucket/);
  });
});
