/**
 * What the CLI states on its own, as an application of the public entries, agrees with the library it
 * runs: the defaults its help prints (the library's, which the flags leave in place), and the wording of
 * its input and disk errors (the library's, so a mistake reads the same from a command and an API).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS } from '../../../src/cli/commands/play.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/cli/commands/serve.js';
import { DEFAULT_MAX_LINE_BYTES, DEFAULT_TIME_TOLERANCE_MS } from '../../../src/cli/commands/validate.js';
import {
  diskError,
  NOT_A_REGULAR_FILE,
  readFailureReason,
  unreadableInput,
} from '../../../src/cli/file-errors.js';
import { DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS as LIBRARY_IDLE_TIMEOUT_MS } from '../../../src/core/playback/resumable-download.js';
import { DEFAULT_MAX_LINE_BYTES as LIBRARY_MAX_LINE_BYTES } from '../../../src/core/protocol/jsonl.js';
import { DEFAULT_TIME_TOLERANCE_MS as LIBRARY_TIME_TOLERANCE_MS } from '../../../src/core/protocol/stream-validator.js';
import { MAX_TIMER_DELAY_MS } from '../../../src/core/timeout.js';
import { unreadableInput as libraryUnreadableInput } from '../../../src/core/unreadable-input.js';
import { diskError as libraryDiskError } from '../../../src/node/fs/disk-error.js';
import {
  NOT_A_REGULAR_FILE as LIBRARY_NOT_A_REGULAR_FILE,
  readFailureReason as libraryReadFailureReason,
} from '../../../src/node/fs/unreadable-input.js';
import { DEFAULT_MAX_UPLOAD_BYTES as LIBRARY_MAX_UPLOAD_BYTES } from '../../../src/node/storage/media-server.js';

describe('the CLI agrees with the library', () => {
  it('prints the library defaults in its help', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(LIBRARY_MAX_LINE_BYTES);
    expect(DEFAULT_TIME_TOLERANCE_MS).toBe(LIBRARY_TIME_TOLERANCE_MS);
    expect(DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS).toBe(LIBRARY_IDLE_TIMEOUT_MS);
    expect(DEFAULT_MAX_UPLOAD_BYTES).toBe(LIBRARY_MAX_UPLOAD_BYTES);
    expect(MAX_TIMER_DELAY_MS).toBe(2 ** 31 - 1);
  });

  it('words unreadable inputs and disk failures as the library does', () => {
    expect(NOT_A_REGULAR_FILE).toBe(LIBRARY_NOT_A_REGULAR_FILE);
    const causes = ['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'ENOSPC', undefined].map((code) =>
      Object.assign(new Error('boom'), code === undefined ? {} : { code }),
    );
    for (const cause of causes) {
      expect(readFailureReason(cause)).toBe(libraryReadFailureReason(cause));
      const ours = unreadableInput('in.bin', readFailureReason(cause), cause);
      const theirs = libraryUnreadableInput('in.bin', libraryReadFailureReason(cause), cause);
      expect([ours.code, ours.message, ours.cause]).toEqual([theirs.code, theirs.message, theirs.cause]);
      for (const path of ['out.bin', undefined]) {
        const disk = diskError('write to', cause, path);
        const library = libraryDiskError('write to', cause, path);
        expect([disk.code, disk.message]).toEqual([library.code, library.message]);
      }
    }
  });
});
