/**
 * Child processes (issue 24, items 3 and 4): ffprobe/ffmpeg die with the CLI whatever signal ends it
 * (TERM, INT, HUP forwarded; KILL through the parent-death sentinel), together with anything they
 * started, and no child ever sees a key or a token in its environment.
 *
 * The tools are stand-ins that hang (a shell that starts a `sleep` and waits for it) and record their
 * pids, so the test can check that every one of them is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../../src/node/media/index.js';
import {
  childEnvironment,
  isSecretVariable,
  SECRET_ENV_VARIABLES,
} from '../../../src/node/process/child-environment.js';
import { CLI_BIN } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
const p = (name: string) => join(tmp.dir, name);

/** Secrets set for the children under test (fake values). */
const SECRETS: Record<string, string> = {
  HAPPY_MEDIA_KEY: 'AAAAsecret-key',
  HAPPY_MEDIA_SEAL_KEY: 'BBBBsecret-seal',
  HAPPY_MEDIA_TOKEN: 'CCCCsecret-token',
  HAPPY_MEDIA_SECRET_FILE: '/nowhere/secret',
  AWS_SECRET_ACCESS_KEY: 'DDDDsecret-aws',
};

/** A video by its magic bytes (an MP4 `ftyp` box): enough for the probe to start ffprobe and ffmpeg. */
async function videoLookalike(): Promise<string> {
  const path = p('clip.mp4');
  const ftyp = Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 0, 0]);
  await writeFile(path, Buffer.concat([ftyp, Buffer.from('isommp41'), Buffer.alloc(64)]));
  return path;
}

/** A tool that records its pid and its sleeping child's pid in `pids`, then waits forever. */
async function hangingTool(name: string, pids: string): Promise<string> {
  const path = p(name);
  await writeFile(path, `#!/bin/sh\nsleep 1000 &\necho "$$ $!" >> '${pids}'\nwait\n`);
  await chmod(path, 0o700);
  return path;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split(/\s+/)
    .filter((s) => s !== '')
    .map(Number);
}

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-children-');
});
afterAll(() => tmp.cleanup());

describe('children die with the CLI', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'] as const)(
    '%s to `happy-media probe` on a hanging tool leaves no ffprobe, ffmpeg or anything they started',
    async (signal) => {
      const pids = p(`pids-${signal}`);
      const video = await videoLookalike();
      const cli: ChildProcess = spawn(process.execPath, [CLI_BIN, 'probe', '--timeout', '600000', video], {
        env: {
          ...process.env,
          FFPROBE_PATH: await hangingTool(`ffprobe-${signal}`, pids),
          FFMPEG_PATH: await hangingTool(`ffmpeg-${signal}`, pids),
        },
        stdio: 'ignore',
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => cli.on('exit', (_, s) => resolve(s)));
      // Both tools (the header ffprobe and the early poster ffmpeg) and their sleeps are running.
      await waitUntil(async () => (await pidsIn(pids)).length === 4, 'both tools to start');
      const started = await pidsIn(pids);
      expect(started.every(alive)).toBe(true);

      cli.kill(signal);
      expect(await exited).toBe(signal);
      await waitUntil(
        async () => started.every((pid) => !alive(pid)),
        `every child to be gone after ${signal}`,
      );
    },
    60_000,
  );
});

describe('children get no secrets', () => {
  it('the list names every secret the project reads, and the rule catches later ones', () => {
    for (const name of [...SECRET_ENV_VARIABLES, ...Object.keys(SECRETS), 'HAPPY_MEDIA_ACCOUNT_TOKEN']) {
      expect(isSecretVariable(name), name).toBe(true);
    }
    for (const name of [
      'PATH',
      'HOME',
      'DISPLAY',
      'HAPPY_MEDIA_STORE',
      'HAPPY_MEDIA_CACHE_DIR',
      'AWS_REGION',
    ]) {
      expect(isSecretVariable(name), name).toBe(false);
    }
    const env = childEnvironment({ ...SECRETS, PATH: '/usr/bin', HOME: '/home/x' });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/x' });
  });

  it('ffprobe and ffmpeg see the environment without the keys, tokens and AWS secret', async () => {
    const dump = p('env-dump');
    const tool = p('env-tool');
    await writeFile(tool, `#!/bin/sh\nenv >> '${dump}'\nexit 1\n`);
    await chmod(tool, 0o700);
    const saved = { ...process.env };
    Object.assign(process.env, SECRETS);
    try {
      const probe = await probeMedia(await videoLookalike(), { ffprobePath: tool, ffmpegPath: tool });
      expect(probe.kind).toBe('file');
    } finally {
      for (const name of Object.keys(SECRETS)) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
    const seen = await readFile(dump, 'utf8');
    expect(seen).toMatch(/^PATH=/m);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(seen).not.toContain(name);
      expect(seen).not.toContain(value);
    }
  });
});
