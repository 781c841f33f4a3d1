/**
 * `happy-media validate` through the built CLI (run `npm run build` first; `npm test` does it).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

const DEMO = 'samples/streams/demo.jsonl';
const INVALID = 'samples/streams/invalid.jsonl';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('happy-media-validate-'));
});
afterAll(async () => {
  await cleanup();
});

describe('happy-media validate', () => {
  it('exits 0 on a valid stream, stdout empty, one-line summary on stderr', async () => {
    const r = await runCli(['validate', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${DEMO}: valid Session Protocol v2 stream (17 messages)\n`);
  });

  it('exits 1 on an invalid stream and prints each violation as "index N: CODE: message"', async () => {
    const r = await runCli(['validate', INVALID]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(': ').slice(0, 2).join(': '))).toEqual([
      'index 4: PERMISSION_OPTION_UNKNOWN',
      'index 5: DUPLICATE_ID',
      'index 6: SCHEMA',
      'index 7: TIME_WENT_BACKWARDS',
      'index 7: PARENT_UNKNOWN',
      'index 8: INVALID_JSON',
      'index 9: CALL_LEFT_OPEN',
    ]);
    expect(r.stderr).toContain(`happy-media: ERR_STREAM_INVALID: ${INVALID}: 7 violations in 10 messages\n`);
  });

  it('reads stdin with "-"', async () => {
    const valid = await runCli(['validate', '-'], { input: await readFile(DEMO) });
    expect(valid.code).toBe(0);
    expect(valid.stderr).toContain('stdin: valid');
    const invalid = await runCli(['validate', '-'], { input: await readFile(INVALID) });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('ERR_STREAM_INVALID: stdin: 7 violations');
  });

  it('--json prints one JSON object per line with index, line, code, message (and id when known)', async () => {
    const r = await runCli(['validate', '--json', INVALID]);
    expect(r.code).toBe(1);
    const objects = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects).toHaveLength(7);
    expect(objects[1]).toEqual({
      index: 5,
      line: 6,
      code: 'DUPLICATE_ID',
      message: expect.stringContaining('"m05"'),
      id: 'm05',
    });
    expect(objects[5]).toEqual({
      index: 8,
      line: 9,
      code: 'INVALID_JSON',
      message: 'line 9 is not valid JSON',
    });
  });

  it('ignores blank lines: index counts messages, line counts lines', async () => {
    const demo = (await readFile(DEMO, 'utf8')).trimEnd().split('\n');
    const file = join(dir, 'blank.jsonl');
    await writeFile(file, ['', demo[0], '   ', '{oops', '', ...demo.slice(1), '', ''].join('\r\n'));
    const r = await runCli(['validate', '--json', file]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      index: 1,
      line: 4,
      code: 'INVALID_JSON',
      message: 'line 4 is not valid JSON',
    });
    expect(r.stderr).toContain('1 violation in 18 messages');
  });

  it('is tolerant of unknown fields unless --strict', async () => {
    const file = join(dir, 'extra.jsonl');
    await writeFile(file, '{"id":"a","time":1,"role":"user","type":"text","text":"hi","mood":"happy"}\n');
    expect((await runCli(['validate', file])).code).toBe(0);
    const strict = await runCli(['validate', '--strict', file]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^index 0: SCHEMA: .*mood/);
  });

  it('--require-turn-start rejects a stream that begins mid-turn; --time-tolerance-ms sets the skew', async () => {
    const file = join(dir, 'excerpt.jsonl');
    await writeFile(
      file,
      [
        '{"id":"a","time":100000,"role":"agent","type":"text","turn":"t1","text":"mid-turn"}',
        '{"id":"b","time":90000,"role":"agent","type":"turn-end","turn":"t1","status":"completed"}',
      ].join('\n'),
    );
    expect((await runCli(['validate', file])).code).toBe(0);
    const strict = await runCli(['validate', '--require-turn-start', file]);
    expect(strict.stdout).toMatch(/^index 0: TURN_NOT_OPEN: /);
    const tight = await runCli(['validate', '--time-tolerance-ms', '5000', file]);
    expect(tight.code).toBe(1);
    expect(tight.stdout).toMatch(/^index 1: TIME_WENT_BACKWARDS: /);
  });

  it('reports lines over --max-line-bytes without buffering them', async () => {
    const file = join(dir, 'long.jsonl');
    await writeFile(file, `{"id":"a","time":1,"role":"user","type":"text","text":"${'x'.repeat(2000)}"}\n`);
    const r = await runCli(['validate', '--max-line-bytes', '1024', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^index 0: LINE_TOO_LONG: line 1 is longer than 1024 bytes/);
  });

  it('exits 1 with an error code for a missing file or a directory', async () => {
    const missing = await runCli(['validate', join(dir, 'nope.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^happy-media: ERR_UNREADABLE_INPUT: cannot read ".*nope\.jsonl": no such file$/m,
    );
    const directory = await runCli(['validate', dir]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toMatch(/^happy-media: ERR_UNREADABLE_INPUT: .*not a regular file/m);
  });

  it('exits 2 on bad usage', async () => {
    expect((await runCli(['validate'])).code).toBe(2);
    const r = await runCli(['validate', '--time-tolerance-ms', 'soon', DEMO]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: .*--time-tolerance-ms/m);
  });

  it('--help describes the command and lists the rule codes', async () => {
    const r = await runCli(['validate', '--help']);
    expect(r.code).toBe(0);
    for (const text of [
      '--json',
      '--strict',
      '--require-turn-start',
      'DUPLICATE_ID',
      'PARENT_UNKNOWN',
      'stdin',
    ]) {
      expect(r.stdout).toContain(text);
    }
  });
});
