import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateStream } from '../../src/core/protocol/index.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tmp.js';

interface Report {
  ok: boolean;
  dir: string;
  kept: boolean;
  files: Record<string, string>;
  steps: { title: string; status: string; lines: string[]; checks: { name: string; ok: boolean }[] }[];
  totals: { passed: number; failed: number; skipped: number };
}

let parent: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  parent = await makeTempDir('happy-media-demo-test-');
});
afterAll(async () => {
  await parent.cleanup();
});

describe('happy-media demo', () => {
  it('runs the whole mission, every check holds, and --keep leaves a valid stream behind', async () => {
    const r = await runCli(['demo', '--json', '--keep', '--dir', parent.dir], { timeoutMs: 180_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(report.kept).toBe(true);
    expect(report.totals.failed).toBe(0);
    expect(report.steps.map((s) => s.status)).toEqual(Array(report.steps.length).fill('ok'));
    expect(report.steps.map((s) => s.title.split(/[ :]/)[0])).toEqual([
      'Generate',
      'Probe',
      'Keys',
      'Stores',
      'Send',
      'Write,',
      'Play',
      "Happy's",
    ]);
    const checks = report.steps.flatMap((s) => s.checks);
    expect(checks.every((c) => c.ok)).toBe(true);
    // Photo, video and PDF, each played back from both stores and compared by SHA-256.
    expect(checks.filter((c) => /byte-equal to what was sent/.test(c.name))).toHaveLength(6);
    // With Happy's real server running (CI), the last step runs the whole loop through a session:
    // appended in order, a repost stored once, the transcript read back and valid, each message played
    // (photo, video and PDF as v2, the PDF as v1).
    const happy = report.steps.at(-1)!;
    if (process.env.HAPPY_MEDIA_HAPPY_SERVER_URL) {
      expect(happy.checks.map((c) => c.ok)).toEqual(Array(9).fill(true));
      expect(happy.checks.filter((c) => /the SHA-256 of what was sent$/.test(c.name))).toHaveLength(5);
    } else {
      expect(happy.lines.join('\n')).toMatch(/scripts\/happy-server\.sh install/);
    }
    expect(checks.some((c) => /display size 360×640/.test(c.name))).toBe(true);

    // What it left behind is real: the plain stream validates, the sealed one is envelopes only.
    const lines = (await readFile(report.files.stream!, 'utf8')).trim().split('\n');
    const messages = lines.map((l) => JSON.parse(l) as { type: string; role: string });
    expect(validateStream(messages)).toEqual([]);
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'tool-call-start',
      'permission-request',
      'permission-response',
      'tool-call-end',
      'photo',
      'video',
      'file',
      'text',
      'turn-end',
    ]);
    const sealed = (await readFile(report.files.sealedStream!, 'utf8')).trim().split('\n');
    expect(sealed).toHaveLength(messages.length);
    for (const line of sealed) {
      const envelope = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(envelope).sort()).toEqual(['c', 't']);
      expect(envelope.t).toBe('encrypted');
    }
    expect(sealed.join('\n')).not.toContain('rotate the phone');
    // The local store holds three blobs, none of them the plaintext sample.
    const photo = await readFile(join(report.files.samples!, 'photo.jpg'));
    const storeFiles = (
      await readdir(report.files.localStore!, { recursive: true, withFileTypes: true })
    ).filter((e) => e.isFile());
    expect(storeFiles).toHaveLength(3);
    for (const f of storeFiles) {
      const bytes = await readFile(join(f.parentPath, f.name));
      expect(bytes.indexOf(photo.subarray(2048, 2112))).toBe(-1);
    }
  }, 180_000);

  it('prints its steps, where the files are, PASS, and removes its directory by default', async () => {
    const r = await runCli(['demo', '--dir', parent.dir], { timeoutMs: 180_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1\. Generate sample media$/m);
    expect(r.stdout).toMatch(/^7\. Play back every media message/m);
    expect(r.stdout).toMatch(/session\.jsonl/);
    expect(r.stdout).toMatch(/^PASS: all \d+ checks held\.$/m);
    expect(r.stdout).not.toMatch(/FAILED/);
    const dir = /in (\S+happy-media-demo-\S+)$/m.exec(r.stdout)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
  }, 180_000);

  it('--keep keeps the session keys (0600) and prints commands that replay what it left (issue 24, item 9)', async () => {
    const r = await runCli(['demo', '--keep', '--dir', parent.dir], { timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(0);
    const blobKey = /^ {3}blobKey +(\S+)$/m.exec(r.stdout)?.[1];
    const sessionKey = /^ {3}sessionKey +(\S+)$/m.exec(r.stdout)?.[1];
    expect(blobKey).toBeDefined();
    expect(sessionKey).toBeDefined();
    for (const key of [blobKey!, sessionKey!]) expect((await stat(key)).mode & 0o777).toBe(0o600);
    expect((await stat(join(blobKey!, '..'))).mode & 0o777).toBe(0o700);
    const after = r.stdout.split('Next, with the kept keys')[1]!.split('\n').slice(1);
    const next = after.slice(0, after.indexOf('')).map((l) => l.trim());
    expect(next).toHaveLength(5); // validate, open, and play for the photo, the video and the PDF
    // Every printed command works as printed.
    const validate = await runCli(next[0]!.replace(/^happy-media /, '').split(' '));
    expect(validate.code, validate.stderr).toBe(0);
    const [head, open] = next[1]!.split(' | ');
    const first = (await readFile(head!.split(' ').at(-1)!, 'utf8')).split('\n')[0]!;
    const opened = await runCli(open!.replace(/^happy-media /, '').split(' '), { input: first });
    expect(opened.code, opened.stderr).toBe(0);
    expect(JSON.parse(opened.stdout)).toMatchObject({ role: 'user', type: 'text' });
    for (const play of next.slice(2)) {
      const args = play
        .split('   #')[0]!
        .replace(/^happy-media /, '')
        .split(' ');
      const played = await runCli([...args, '--cache-dir', join(parent.dir, 'replay-cache')]);
      expect(played.code, played.stderr).toBe(0);
      expect(existsSync(played.stdout.trim())).toBe(true);
    }
  }, 240_000);

  it('without ffmpeg, skips the video with the install hint and still passes the rest', async () => {
    const r = await runCli(['demo', '--json', '--dir', parent.dir], {
      timeoutMs: 180_000,
      env: { FFMPEG_PATH: '/nonexistent/ffmpeg', FFPROBE_PATH: '/nonexistent/ffprobe' },
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(report.totals.skipped).toBe(1);
    expect(report.steps[0]!.lines.join('\n')).toMatch(/skipped: .*apt-get install ffmpeg/);
    const checks = report.steps.flatMap((s) => s.checks);
    expect(checks.filter((c) => /byte-equal to what was sent/.test(c.name))).toHaveLength(4);
    expect(checks.some((c) => c.name.startsWith('video'))).toBe(false);
  }, 180_000);
});
