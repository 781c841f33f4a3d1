/**
 * One mistake, one error: a missing path or a directory given as input reads the same (class, code and
 * message) whether probing, reading an envelope or message, or sending.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonInput } from '../../../src/cli/read-input.js';
import { ProbeError } from '../../../src/core/errors.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  tmp = await makeTempDir();
  await mkdir(join(tmp.dir, 'a-dir'));
});
afterAll(() => tmp.cleanup());

const readers = {
  probeMedia: (path: string) => probeMedia(path),
  readJsonInput: (path: string) => readJsonInput(path),
};

describe('ERR_UNREADABLE_INPUT is the same everywhere', () => {
  for (const [name, read] of Object.entries(readers)) {
    it(`${name}: a missing path`, async () => {
      const path = join(tmp.dir, 'missing.json');
      const error = await read(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProbeError);
      expect(error).toMatchObject({
        code: 'ERR_UNREADABLE_INPUT',
        message: `cannot read ${JSON.stringify(path)}: no such file`,
      });
      expect((error as ProbeError).cause).toMatchObject({ code: 'ENOENT' });
    });

    it(`${name}: a directory`, async () => {
      const path = join(tmp.dir, 'a-dir');
      const error = await read(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProbeError);
      expect(error).toMatchObject({
        code: 'ERR_UNREADABLE_INPUT',
        message: `cannot read ${JSON.stringify(path)}: not a regular file (a directory, device or pipe)`,
      });
    });
  }
});
