/**
 * `happy-media keygen`, `seal` and `open` as a user runs them (the built CLI in a child process).
 * Run `npm run build` first when calling vitest directly (`npm test` does it).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../src/core/bytes.js';
import {
  dataKey,
  encryptDataKey,
  legacyKey,
  openMessage,
  sealMessage,
  sealRaw,
} from '../../../src/core/envelope/index.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';
import golden from '../../fixtures/happy-formats.json' with { type: 'json' };
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

const message: SessionMessage = {
  id: 'msg_1',
  time: 1710000000000,
  role: 'user',
  type: 'text',
  text: 'fix the bug, please',
};
const messageJson = JSON.stringify(message);

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('happy-media-envelope-cli-'));
});
afterAll(() => cleanup());

/** The one-line error the CLI prints, as `{ code, text }`. */
function cliError(stderr: string): string {
  const match = /^happy-media: (ERR_[A-Z_]+): /m.exec(stderr);
  return match?.[1] ?? `no error code in: ${stderr}`;
}

describe('keygen', () => {
  it('prints a fresh standard-base64 32-byte key each time', async () => {
    const a = await runCli(['keygen']);
    const b = await runCli(['keygen']);
    expect(a.code).toBe(0);
    expect(fromBase64(a.stdout.trim())).toHaveLength(32);
    expect(a.stdout).not.toBe(b.stdout);
  });
  it('--out writes a 0600 file and never overwrites one', async () => {
    const path = join(dir, 'new.key');
    const first = await runCli(['keygen', '--out', path]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(fromBase64((await readFile(path, 'utf8')).trim())).toHaveLength(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const before = await readFile(path, 'utf8');
    const second = await runCli(['keygen', '--out', path]);
    expect(second.code).toBe(1);
    expect(cliError(second.stderr)).toBe('ERR_DISK');
    expect(await readFile(path, 'utf8')).toBe(before);
  });
});

describe('seal', () => {
  const key = new Uint8Array(32).fill(7);
  const keyB64 = toBase64(key);
  it('seals a v2 message from stdin (datakey by default) that the library opens', async () => {
    const result = await runCli(['seal', '--key', keyB64], { input: messageJson });
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.t).toBe('encrypted');
    expect(fromBase64(envelope.c)[0]).toBe(0);
    expect(openMessage(envelope, dataKey(key))).toEqual(message);
  });
  it('--variant legacy seals with secretbox under the secret', async () => {
    const result = await runCli(['seal', '--key', keyB64, '--variant', 'legacy'], { input: messageJson });
    expect(result.code).toBe(0);
    expect(openMessage(JSON.parse(result.stdout), legacyKey(key))).toEqual(message);
  });
  it('reads the key from --key-file and from HAPPY_MEDIA_KEY, and the input from a file', async () => {
    const keyFile = join(dir, 'seal.key');
    await writeFile(keyFile, `${keyB64}\n`, { mode: 0o600 });
    const input = join(dir, 'message.json');
    await writeFile(input, messageJson);
    const fromFile = await runCli(['seal', '--key-file', keyFile, input]);
    expect(fromFile.code).toBe(0);
    expect(openMessage(JSON.parse(fromFile.stdout), dataKey(key))).toEqual(message);
    const fromEnv = await runCli(['seal', input], { env: { HAPPY_MEDIA_KEY: keyB64 } });
    expect(fromEnv.code).toBe(0);
    expect(openMessage(JSON.parse(fromEnv.stdout), dataKey(key))).toEqual(message);
  });
  it('refuses an invalid v2 message with ERR_SCHEMA (exit 1), and seals it with --raw', async () => {
    const invalid = JSON.stringify({ hello: 'world' });
    const refused = await runCli(['seal', '--key', keyB64], { input: invalid });
    expect(refused.code).toBe(1);
    expect(cliError(refused.stderr)).toBe('ERR_SCHEMA');
    expect(refused.stdout).toBe('');
    const raw = await runCli(['seal', '--key', keyB64, '--raw'], { input: invalid });
    expect(raw.code).toBe(0);
    const opened = await runCli(['open', '--key', keyB64, '--raw'], { input: raw.stdout });
    expect(JSON.parse(opened.stdout)).toEqual({ hello: 'world' });
  });
  it('input that is not JSON is ERR_FORMAT (exit 1) and is not echoed', async () => {
    const result = await runCli(['seal', '--key', keyB64], { input: 'my secret plan {' });
    expect(result.code).toBe(1);
    expect(cliError(result.stderr)).toBe('ERR_FORMAT');
    expect(result.stderr).not.toContain('secret plan');
  });
});

describe('open', () => {
  const key = new Uint8Array(32).fill(9);
  const keyB64 = toBase64(key);
  it('an authentic envelope whose JSON nests 100 000 deep is ERR_LIMIT_EXCEEDED, not ERR_INTERNAL (issue 24, item 8)', async () => {
    // JSON.parse reads it; printing it overflowed the stack, which the CLI reported as ERR_INTERNAL.
    const depth = 100_000;
    for (const text of [
      '['.repeat(depth) + ']'.repeat(depth),
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
    ]) {
      const record = encryptDataKey(new TextEncoder().encode(text), key);
      const envelope = JSON.stringify({ t: 'encrypted', c: toBase64(record) });
      const result = await runCli(['open', '--raw', '--key', keyB64], { input: envelope });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^happy-media: ERR_LIMIT_EXCEEDED: the value nests too deeply to be printed/,
      );
      expect(result.stdout).toBe('');
    }
  });
  it('prints the message of an envelope made by the library, both variants', async () => {
    for (const [variant, sk] of [
      ['datakey', dataKey(key)],
      ['legacy', legacyKey(key)],
    ] as const) {
      const envelope = JSON.stringify(sealMessage(message, sk));
      const result = await runCli(['open', '--key', keyB64, '--variant', variant], { input: envelope });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(message);
    }
  });
  it("opens Happy's golden dataKey vector with --raw", async () => {
    const result = await runCli(
      ['open', '--raw', '--key', toBase64(fromHexString(golden.inputs.dataKeyHex))],
      {
        input: JSON.stringify({ t: 'encrypted', c: golden.dataKey.base64 }),
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ hello: 'world' });
  });
  it('a wrong key or variant is ERR_DECRYPTION_FAILED (exit 1) and prints nothing on stdout', async () => {
    const envelope = JSON.stringify(sealMessage(message, dataKey(key)));
    const wrongKey = await runCli(['open', '--key', toBase64(new Uint8Array(32))], { input: envelope });
    expect(wrongKey.code).toBe(1);
    expect(cliError(wrongKey.stderr)).toBe('ERR_DECRYPTION_FAILED');
    expect(wrongKey.stdout).toBe('');
    const wrongVariant = await runCli(['open', '--key', keyB64, '--variant', 'legacy'], { input: envelope });
    expect(wrongVariant.code).toBe(1);
    expect(cliError(wrongVariant.stderr)).toBe('ERR_DECRYPTION_FAILED');
  });
  it('an authentic value that is not a v2 message is ERR_SCHEMA; not an envelope is ERR_FORMAT', async () => {
    const raw = JSON.stringify(sealRaw({ not: 'a message' }, dataKey(key)));
    const schema = await runCli(['open', '--key', keyB64], { input: raw });
    expect(schema.code).toBe(1);
    expect(cliError(schema.stderr)).toBe('ERR_SCHEMA');
    const notEnvelope = await runCli(['open', '--key', keyB64], { input: messageJson });
    expect(notEnvelope.code).toBe(1);
    expect(cliError(notEnvelope.stderr)).toBe('ERR_FORMAT');
  });
  it('a key file that is missing, a directory, unreadable or malformed is ERR_USAGE (exit 2); a raw 32-byte key file works', async () => {
    const malformed = join(dir, 'malformed.key');
    await writeFile(malformed, 'not a key\n', { mode: 0o600 });
    const unreadable = join(dir, 'unreadable.key');
    await writeFile(unreadable, `${keyB64}\n`, { mode: 0o000 });
    // root reads a mode-000 file anyway, so that case only says something for other users.
    const root = process.getuid?.() === 0;
    for (const bad of [join(dir, 'absent.key'), dir, malformed, ...(root ? [] : [unreadable])]) {
      for (const command of ['open', 'seal']) {
        const result = await runCli([command, '--key-file', bad], { input: '{}' });
        expect(result.code, `${command} ${bad}: ${result.stderr}`).toBe(2);
        expect(cliError(result.stderr)).toBe('ERR_USAGE');
      }
    }
    const rawKeyFile = join(dir, 'raw.key');
    await writeFile(rawKeyFile, key, { mode: 0o600 });
    const envelope = JSON.stringify(sealMessage(message, dataKey(key)));
    const opened = await runCli(['open', '--key-file', rawKeyFile], { input: envelope });
    expect(opened.code).toBe(0);
    expect(JSON.parse(opened.stdout)).toEqual(message);
  });
  it('a missing input file is ERR_UNREADABLE_INPUT (exit 1)', async () => {
    const result = await runCli(['open', '--key', keyB64, join(dir, 'absent.json')]);
    expect(result.code).toBe(1);
    expect(cliError(result.stderr)).toBe('ERR_UNREADABLE_INPUT');
  });
});

describe('key problems are usage errors (exit 2) that never print the key', () => {
  const envelope = JSON.stringify(sealMessage(message, dataKey(new Uint8Array(32).fill(3))));
  const cases: [string, string[], NodeJS.ProcessEnv?][] = [
    ['no key at all', ['open'], { HAPPY_MEDIA_KEY: '' }],
    ['a short key', ['open', '--key', toBase64(new Uint8Array(31).fill(0x41))]],
    ['bad base64', ['open', '--key', 'not base64 at all!!']],
    ['url-safe base64', ['open', '--key', toBase64(new Uint8Array(32).fill(0xfb)).replace(/\+/g, '-')]],
    ['a bad env key', ['open'], { HAPPY_MEDIA_KEY: 'c2VjcmV0LXNob3J0' }],
    [
      'both --key and --key-file',
      ['open', '--key', toBase64(new Uint8Array(32)), '--key-file', '/nonexistent'],
    ],
    ['an unknown variant', ['open', '--key', toBase64(new Uint8Array(32)), '--variant', 'aes']],
  ];
  it.each(cases)('%s', async (_name, args, env) => {
    const result = await runCli(args, { input: envelope, env: env ?? { HAPPY_MEDIA_KEY: '' } });
    expect(result.code).toBe(2);
    expect(cliError(result.stderr)).toBe('ERR_USAGE');
    expect(result.stdout).toBe('');
    const keyArg = args[args.indexOf('--key') + 1];
    if (args.includes('--key') && keyArg) expect(result.stderr).not.toContain(keyArg);
    if (env?.HAPPY_MEDIA_KEY) expect(result.stderr).not.toContain(env.HAPPY_MEDIA_KEY);
  });
});

function fromHexString(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}
