/**
 * The universal entry under the Hermes VM (hermes-engine-cli's Linux binary), bundled and lowered as a
 * React Native app's Metro build would be, with only an app's globals (no crypto.subtle, Buffer,
 * process). Skipped where hermes-engine-cli has no binary for the platform.
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleForHermes, type HermesRun, hermesBinary, runHermes } from '../../bench/harness/hermes.js';
import { makeTempDir } from '../helpers/tmp.js';
import { HERMES_CHECKS } from './check-names.js';

const binary = hermesBinary();

describe.skipIf(binary === undefined)('universal entry under Hermes', () => {
  let run: HermesRun;

  beforeAll(async () => {
    const tmp = await makeTempDir('happy-media-hermes-');
    try {
      const script = join(tmp.dir, 'suite.js');
      await bundleForHermes(join(import.meta.dirname, 'suite.ts'), script);
      run = await runHermes(binary!, script);
      // HERMES_KEEP=<dir>: keep the bundle and the output for debugging.
      if (process.env.HERMES_KEEP) {
        await cp(script, join(process.env.HERMES_KEEP, 'suite.js'));
        await writeFile(join(process.env.HERMES_KEEP, 'out.txt'), `${run.stdout}\n${run.stderr}`);
      }
    } finally {
      await tmp.cleanup();
    }
  }, 600_000);

  it('runs to the end without a failed check', () => {
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n').filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(run.stdout).toMatch(/^done 4$/m);
    expect(run.code).toBe(0);
  });

  it.each(HERMES_CHECKS)('%s', (name) => {
    expect(run.stdout.split('\n')).toContain(`ok ${name}`);
  });
});
