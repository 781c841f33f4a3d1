/**
 * `happy-media map`: the built CLI as a user runs it. Its output is a stream `happy-media validate`
 * accepts; `--store`/`--key-file` upload images (the blobs decrypt to the originals); `--seal-key-file`
 * prints envelopes; bad lines are counted; bad usage exits 2, an unreadable input 1.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { dataKey, type EncryptedEnvelope, openMessage, toBase64 } from '../../../src/envelope.js';
import type { SessionMessage } from '../../../src/node/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import {
  assistant,
  image,
  prompt,
  resetFixtures,
  text,
  toolResult,
  toolUse,
  userBlocks,
} from '../../core/mappers/claude-fixtures.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect } from '../storage/store-contract.js';

const PNG = toBase64(
  new Uint8Array([
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31,
    21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 240, 31, 0, 5, 0, 1, 255, 137,
    153, 61, 29, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
  ]),
);

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let keyFile: string;
let sealFile: string;
const blobKey = new Uint8Array(randomBytes(32));
const sealKey = new Uint8Array(randomBytes(32));

function log(): string {
  resetFixtures();
  return `${[
    prompt('Take a screenshot'),
    assistant('m1', [text('Taking it.')]),
    assistant('m1', [toolUse('toolu_1', 'Screenshot', {})]),
    userBlocks([toolResult('toolu_1', [text('done'), image(PNG, 'image/png')])]),
    assistant('m2', [text('Here it is.')]),
  ]
    .map((event) => JSON.stringify(event))
    .join('\n')}\n`;
}

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as SessionMessage);

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-map-cli-');
  keyFile = join(tmp.dir, 'blob.key');
  sealFile = join(tmp.dir, 'session.key');
  await writeFile(keyFile, toBase64(blobKey), { mode: 0o600 });
  await writeFile(sealFile, toBase64(sealKey), { mode: 0o600 });
});
afterAll(async () => tmp.cleanup());

describe('happy-media map', () => {
  it('prints a v2 stream that validate accepts; images without a store become service notes', async () => {
    const r = await runCli(['map', '--from', 'claude', '-'], { input: log() });
    expect(r.code, r.stderr).toBe(0);
    const messages = lines(r.stdout);
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'text',
      'tool-call-start',
      'service',
      'tool-call-end',
      'text',
      'turn-end',
    ]);
    expect(r.stderr).toMatch(/^stdin: 5 events → 8 messages; skipped 1 \(media-not-uploaded 1\)\n$/);
    const valid = await runCli(['validate', '-', '--strict', '--require-turn-start'], { input: r.stdout });
    expect(valid.code, valid.stdout).toBe(0);
  });

  it('uploads images with --store/--key-file; each blob decrypts to the original', async () => {
    const store = join(tmp.dir, 'blobs');
    const r = await runCli(['map', '--from', 'claude', '-', '--store', store, '--key-file', keyFile], {
      input: log(),
    });
    expect(r.code, r.stderr).toBe(0);
    const photo = lines(r.stdout).find((m) => m.type === 'photo');
    expect(photo).toMatchObject({ role: 'agent', width: 1, height: 1, parentId: 'toolu_1' });
    const ref = (photo as { ref: string }).ref;
    const blob = await collect(await new LocalBlobStore(store).get(ref));
    expect(toBase64(await decryptBlob(blob, blobKey, { context: mediaBlobContext(ref) }))).toBe(PNG);
    expect(r.stderr).toContain('1 upload; nothing skipped');
  });

  it('prints sealed envelopes with --seal-key-file', async () => {
    const r = await runCli(['map', '--from', 'claude', '-', '--seal-key-file', sealFile], { input: log() });
    expect(r.code, r.stderr).toBe(0);
    const envelopes = lines(r.stdout) as unknown as EncryptedEnvelope[];
    expect(envelopes.every((e) => e.t === 'encrypted' && typeof e.c === 'string')).toBe(true);
    const opened = envelopes.map((e) => openMessage(e, dataKey(sealKey)));
    expect(opened.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'text',
      'tool-call-start',
      'service',
      'tool-call-end',
      'text',
      'turn-end',
    ]);
  });

  it('counts lines it cannot read (truncated, not JSON, too long) and still prints a valid stream', async () => {
    const input = `${log()}{"type":"assistant","message":{"id":"m3","content":[{"type":"te\nnot json at all\n${JSON.stringify({ type: 'future' })}\n`;
    const r = await runCli(['map', '--from', 'claude', '-', '--max-line-bytes', '100000'], { input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      '6 events → 8 messages; skipped 4 (unknown-event 1, media-not-uploaded 1, unreadable 2)',
    );
    const tooLong = await runCli(['map', '--from', 'claude', '-', '--max-line-bytes', '300'], {
      input: log(),
    });
    expect(tooLong.stderr).toMatch(/unreadable 4\)/);
    expect((await runCli(['validate', '-'], { input: tooLong.stdout })).code).toBe(0);
  });

  it('a tool input nested deeper than JSON can be printed is left out with a note, plain and sealed: the run goes on', async () => {
    const deep = `${'['.repeat(200_000)}1${']'.repeat(200_000)}`;
    const call = `{"type":"assistant","session_id":"s","uuid":"u2","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","deep":${deep}}}]}}`;
    const after = JSON.stringify({
      type: 'assistant',
      session_id: 's',
      uuid: 'u3',
      message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'after it' }] },
    });
    const input = `${JSON.stringify({ type: 'user', session_id: 's', uuid: 'u1', message: { role: 'user', content: 'hi' } })}\n${call}\n${after}\n`;
    for (const extra of [[], ['--seal-key-file', sealFile]]) {
      const r = await runCli(['map', '--from', 'claude', '-', '--max-line-bytes', '1000000', ...extra], {
        input,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/malformed-event 1/);
      if (extra.length === 0) {
        const messages = lines(r.stdout);
        expect(messages.find((m) => m.type === 'tool-call-start')).toMatchObject({ callId: 't1', args: {} });
        expect(messages.some((m) => m.type === 'text' && m.text === 'after it')).toBe(true);
      }
    }
  });

  it('reads a JSON array of Happy records (--from happy), ids derived from the records', async () => {
    const records = [
      {
        id: 'rec1',
        seq: 1,
        createdAt: 1000,
        content: { role: 'user', content: { type: 'text', text: 'hi' } },
      },
      {
        id: 'rec2',
        seq: 2,
        createdAt: 2000,
        content: { role: 'agent', content: { type: 'codex', data: { type: 'message', message: 'hello' } } },
      },
    ];
    const r = await runCli(['map', '--from', 'happy', '-'], { input: JSON.stringify(records, null, 2) });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((m) => [m.id, m.type])).toEqual([
      ['rec1', 'text'],
      ['rec2.1', 'turn-start'],
      ['rec2.2', 'text'],
      ['rec2.3', 'turn-end'],
    ]);
  });

  it('stops on Ctrl-C while it waits for input: exit 1, ERR_ABORTED', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'map', '--from', 'claude', '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } })}\n`);
    // Wait until the first line was mapped (the mapper is waiting for the next one), then interrupt.
    for (let i = 0; i < 200 && stdout === ''; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stdout).toContain('"type":"text"');
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/happy-media: ERR_ABORTED: interrupted/);
  });

  it('exits 2 on bad usage and 1 on an unreadable input', async () => {
    for (const args of [
      ['map', '-'],
      ['map', '--from', 'gpt', '-'],
      ['map', '--from', 'claude', '-', '--key-file', 'x'],
      ['map', '--from', 'claude', '-', '--variant', 'legacy'],
      ['map', '--from', 'claude', '-', '--max-line-bytes', '0'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: /);
    }
    const missing = await runCli(['map', '--from', 'claude', join(tmp.dir, 'nope.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/ERR_UNREADABLE_INPUT/);
  });
});
