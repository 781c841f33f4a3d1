import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { sample, samplesDir } from './samples.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  await samplesDir();
  tmp = await makeTempDir();
});
afterAll(() => tmp.cleanup());

describe('happy-media probe', () => {
  it('--version names each tool: where it comes from, its path and version; exit 1 when one is unusable', async () => {
    const r = await runCli(['probe', '--version'], { env: { FFPROBE_PATH: join(tmp.dir, 'no-ffprobe') } });
    expect(r.code).toBe(1);
    const [probeLine, mpegLine] = r.stdout.trim().split('\n');
    expect(probeLine!.startsWith(`ffprobe: env ${join(tmp.dir, 'no-ffprobe')}: not usable: `)).toBe(true);
    expect(probeLine).toMatch(/ffprobe was not found or cannot be run/);
    expect(mpegLine).toMatch(/^ffmpeg: (path|bundled) \/\S+ffmpeg: ffmpeg version /);
    const ok = await runCli(['probe', '--version']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ffprobe: (path|bundled) \/\S+ffprobe: ffprobe version /m);
  });

  it('without files or --version is a usage error (exit 2)', async () => {
    const r = await runCli(['probe']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ERR_USAGE: missing argument/);
  });

  it('prints one JSON object per file, in order, and exits 0', async () => {
    const r = await runCli([
      'probe',
      sample('jpeg-orientation-6.jpg'),
      sample('vp9.webm'),
      sample('notes.txt'),
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ kind: 'photo', mimeType: 'image/jpeg', width: 32, height: 48 });
    expect(lines[1]).toMatchObject({ kind: 'video', mimeType: 'video/webm', width: 160, height: 120 });
    expect(lines[2]).toMatchObject({ kind: 'file', mimeType: 'text/plain', name: 'notes.txt' });
  });

  it('reports an unreadable path on stderr, still probes the others, and exits 1', async () => {
    const r = await runCli(['probe', join(tmp.dir, 'missing.png'), sample('png-alpha.png')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^happy-media: ERR_UNREADABLE_INPUT: /m);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ kind: 'photo', name: 'png-alpha.png' })]);
  });

  it('prints a warning for content that is not what it claims, with exit 0', async () => {
    const r = await runCli(['probe', sample('truncated.png')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: 'file',
      mimeType: 'image/png',
      warning: expect.any(String),
    });
  });

  it('treats a file named -i after -- as a file', async () => {
    await copyFile(sample('notes.txt'), join(tmp.dir, '-i'));
    const r = await runCli(['probe', '--', '-i'], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'file', name: '-i', mimeType: 'text/plain' });
  });

  it('--timeout 2147483648 (2^31 ms) waits for the tools instead of killing them at once', async () => {
    const r = await runCli(['probe', '--timeout', String(2 ** 31), sample('vp9.webm')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'video', width: 160, height: 120 });
  });

  it('rejects a bad --timeout as usage (exit 2)', async () => {
    const r = await runCli(['probe', '--timeout', 'soon', sample('notes.txt')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ERR_USAGE/);
  });
});
