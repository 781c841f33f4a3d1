import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  DecryptionError,
  DiskError,
  type ErrorCode,
  FormatError,
  HappyMediaError,
  InternalError,
  InvalidArgumentError,
  isHappyMediaError,
  LimitError,
  NotSupportedError,
  ProbeError,
  reviveError,
  SchemaError,
  StorageError,
  StreamError,
  UnauthorizedError,
} from '../../src/core/errors.js';

describe('error tree', () => {
  it('gives every error a stable code, its class name and the base class', () => {
    const e = new FormatError('too short');
    expect(e).toBeInstanceOf(HappyMediaError);
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('ERR_FORMAT');
    expect(e.name).toBe('FormatError');
    expect(new FormatError('v', { code: 'ERR_UNSUPPORTED_VERSION' }).code).toBe('ERR_UNSUPPORTED_VERSION');
    expect(new ProbeError('x', { code: 'ERR_PROBE_TIMEOUT' }).code).toBe('ERR_PROBE_TIMEOUT');
  });

  it('keeps the cause', () => {
    const cause = new Error('inner');
    expect(new InvalidArgumentError('bad', { cause }).cause).toBe(cause);
  });

  it('uses one message for every decryption failure, and never a cause', () => {
    expect(new DecryptionError().message).toBe('decryption failed: the data is not authentic for this key');
    expect(new DecryptionError().cause).toBeUndefined();
  });

  it('carries schema issues as data', () => {
    const e = new SchemaError('bad', [{ path: ['a', 0], code: 'invalid_type', message: 'm' }]);
    expect(e.issues[0]?.path).toEqual(['a', 0]);
    expect(isHappyMediaError(e, 'ERR_SCHEMA')).toBe(true);
    expect(isHappyMediaError(e, 'ERR_FORMAT')).toBe(false);
    expect(isHappyMediaError(new Error('x'))).toBe(false);
  });
});

describe('reviveError (an error that crossed a boundary keeping only its code and message)', () => {
  // Every code (a new code without a row here is a type error), and the class it comes back as.
  const classOf = {
    ERR_INVALID_ARGUMENT: InvalidArgumentError,
    // The CLI's own code: the library has no class for it, so it comes back as the base class.
    ERR_USAGE: HappyMediaError,
    ERR_FORMAT: FormatError,
    ERR_UNSUPPORTED_VERSION: FormatError,
    ERR_DECRYPTION_FAILED: DecryptionError,
    ERR_SCHEMA: SchemaError,
    ERR_STREAM_INVALID: StreamError,
    ERR_LIMIT_EXCEEDED: LimitError,
    ERR_PROBE_FAILED: ProbeError,
    ERR_PROBE_TIMEOUT: ProbeError,
    ERR_FFMPEG_MISSING: ProbeError,
    ERR_UNREADABLE_INPUT: ProbeError,
    ERR_STORAGE: StorageError,
    ERR_NOT_FOUND: StorageError,
    ERR_INVALID_REF: StorageError,
    ERR_DOWNLOAD_FAILED: StorageError,
    ERR_UPLOAD_FAILED: StorageError,
    ERR_UNAUTHORIZED: UnauthorizedError,
    ERR_DISK: DiskError,
    ERR_ABORTED: AbortedError,
    ERR_DEPENDENCY_MISSING: HappyMediaError,
    ERR_NOT_SUPPORTED: NotSupportedError,
    ERR_INTERNAL: InternalError,
  } satisfies Record<ErrorCode, abstract new (...args: never[]) => HappyMediaError>;

  it('comes back as its class with its code and message (one message for a decryption failure)', () => {
    for (const [code, Class] of Object.entries(classOf) as [ErrorCode, typeof HappyMediaError][]) {
      const error = reviveError(code, 'what happened');
      expect(error, code).toBeInstanceOf(Class);
      expect(error.code).toBe(code);
      expect(error.message).toBe(
        code === 'ERR_DECRYPTION_FAILED' ? new DecryptionError().message : 'what happened',
      );
    }
  });
});
