/**
 * `happy-media map --from codex|acp` over the fixture logs, as a user runs the built CLI: every output
 * is a valid stream (strict, every turn opened; the last case runs `happy-media validate` on it); with `--store` every image
 * is uploaded and its blob decrypts to the provider's bytes; a truncated last line is counted and the
 * stream stays valid.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { toBase64 } from '../../../src/envelope.js';
import { type SessionMessage, validateStream } from '../../../src/node/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect } from '../storage/store-contract.js';

const FIXTURES = new URL('../../fixtures/mappers/', import.meta.url);
let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let keyFile: string;
const blobKey = new Uint8Array(randomBytes(32));

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-map-codex-acp-');
  keyFile = join(tmp.dir, 'blob.key');
  await writeFile(keyFile, toBase64(blobKey), { mode: 0o600 });
});
afterAll(async () => tmp.cleanup());

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as SessionMessage);

/** Every base64 image in a fixture: image blocks' `data`, `data:` URLs. */
function images(text: string): Uint8Array[] {
  const found = [
    ...text.matchAll(/"data":"([A-Za-z0-9+/=]{40,})"|"data:image\/[a-z]+;base64,([A-Za-z0-9+/=]+)"/g),
  ];
  return found.map((match) => new Uint8Array(Buffer.from(match[1] ?? match[2]!, 'base64')));
}

describe('happy-media map --from codex|acp', () => {
  for (const [provider, fixture, photos] of [
    ['codex', 'codex/exec-json.jsonl', 1],
    ['codex', 'codex/rollout.jsonl', 2],
    ['codex', 'codex/events-approvals.jsonl', 1],
    ['acp', 'acp/prompt-turn.jsonl', 3],
    ['acp', 'acp/cancel.jsonl', 0],
    ['acp', 'acp/load-replay.jsonl', 2],
  ] as const) {
    it(`${fixture}: a valid stream, every image uploaded and decrypting to the original`, async () => {
      const path = new URL(fixture, FIXTURES).pathname;
      const store = join(tmp.dir, fixture.replace(/\W/g, '-'));
      const r = await runCli(['map', '--from', provider, path, '--store', store, '--key-file', keyFile]);
      expect(r.code, r.stderr).toBe(0);
      const messages = lines(r.stdout);
      expect(validateStream(messages, { mode: 'strict', requireTurnStart: true })).toEqual([]);

      const uploaded = messages.filter((m) => m.type === 'photo');
      expect(uploaded).toHaveLength(photos);
      const blobs = new LocalBlobStore(store);
      const originals = images(await readFile(path, 'utf8')).map((bytes) => toBase64(bytes));
      for (const photo of uploaded) {
        const plain = await decryptBlob(await collect(await blobs.get(photo.ref)), blobKey, {
          context: mediaBlobContext(photo.ref),
        });
        expect(originals).toContain(toBase64(plain));
      }
    });
  }

  it('counts a truncated last line and still prints a valid stream', async () => {
    const text = await readFile(new URL('codex/exec-json.jsonl', FIXTURES), 'utf8');
    const r = await runCli(['map', '--from', 'codex', '-'], {
      input: `${text}{"type":"item.completed","item":{"id`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/unreadable 1/);
    const valid = await runCli(['validate', '-', '--strict', '--require-turn-start'], { input: r.stdout });
    expect(valid.code, valid.stdout).toBe(0);
  });
});
