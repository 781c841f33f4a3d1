/**
 * Type-level checks (by `tsc -p tsconfig.json`, which includes the tests): each error class narrows
 * `code`, so `if (e instanceof StorageError)` leaves only the storage codes; the runtime assertions
 * confirm the same objects carry those codes.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { UsageError } from '../../src/cli/usage-error.js';
import {
  AbortedError,
  DecryptionError,
  DiskError,
  FormatError,
  type FormatErrorCode,
  InternalError,
  InvalidArgumentError,
  isHappyMediaError,
  LimitError,
  MissingDependencyError,
  NotSupportedError,
  ProbeError,
  type ProbeErrorCode,
  SchemaError,
  StorageError,
  type StorageErrorCode,
  StreamError,
  UnauthorizedError,
} from '../../src/errors.js';
import { type ErrorCode, HappyMediaError } from '../../src/index.js';

/** What a `catch` clause sees: the static type is gone. */
function caught(error: Error): unknown {
  return error;
}

describe('error code types', () => {
  it('instanceof narrows `code` to the codes of that class', () => {
    const errors: unknown[] = [
      new StorageError('gone', { code: 'ERR_NOT_FOUND' }),
      new FormatError('old', { code: 'ERR_UNSUPPORTED_VERSION' }),
      new ProbeError('slow', { code: 'ERR_PROBE_TIMEOUT' }),
      new DecryptionError(),
    ];
    const seen: string[] = [];
    for (const e of errors) {
      if (e instanceof StorageError) {
        expectTypeOf(e.code).toEqualTypeOf<StorageErrorCode>();
        seen.push(e.code);
      } else if (e instanceof FormatError) {
        expectTypeOf(e.code).toEqualTypeOf<FormatErrorCode>();
        seen.push(e.code);
      } else if (e instanceof ProbeError) {
        expectTypeOf(e.code).toEqualTypeOf<ProbeErrorCode>();
        seen.push(e.code);
      } else if (isHappyMediaError(e)) {
        seen.push(e.code);
      }
    }
    expect(seen).toEqual([
      'ERR_NOT_FOUND',
      'ERR_UNSUPPORTED_VERSION',
      'ERR_PROBE_TIMEOUT',
      'ERR_DECRYPTION_FAILED',
    ]);
  });

  it('the base class keeps every code', () => {
    const e = caught(new DecryptionError());
    if (e instanceof HappyMediaError) expectTypeOf(e.code).toEqualTypeOf<ErrorCode>();
    expect((e as HappyMediaError).code).toBe('ERR_DECRYPTION_FAILED');
  });

  it('single-code classes have a literal code', () => {
    expectTypeOf(new InvalidArgumentError('x').code).toEqualTypeOf<'ERR_INVALID_ARGUMENT'>();
    expectTypeOf(new UsageError('x').code).toEqualTypeOf<'ERR_USAGE'>();
    expectTypeOf(new DecryptionError().code).toEqualTypeOf<'ERR_DECRYPTION_FAILED'>();
    expectTypeOf(new SchemaError('x', []).code).toEqualTypeOf<'ERR_SCHEMA'>();
    expectTypeOf(new StreamError('x').code).toEqualTypeOf<'ERR_STREAM_INVALID'>();
    expectTypeOf(new LimitError('x').code).toEqualTypeOf<'ERR_LIMIT_EXCEEDED'>();
    expectTypeOf(new DiskError('x').code).toEqualTypeOf<'ERR_DISK'>();
    expectTypeOf(new AbortedError().code).toEqualTypeOf<'ERR_ABORTED'>();
    expectTypeOf(new UnauthorizedError('x').code).toEqualTypeOf<'ERR_UNAUTHORIZED'>();
    expectTypeOf(new MissingDependencyError('sharp', 'x').code).toEqualTypeOf<'ERR_DEPENDENCY_MISSING'>();
    expectTypeOf(new NotSupportedError('x').code).toEqualTypeOf<'ERR_NOT_SUPPORTED'>();
    expectTypeOf(new InternalError('x').code).toEqualTypeOf<'ERR_INTERNAL'>();
    expect(new NotSupportedError('x').code).toBe('ERR_NOT_SUPPORTED');
    expect(new InternalError('x').code).toBe('ERR_INTERNAL');
    expect(new InternalError('x')).toBeInstanceOf(HappyMediaError);
    expect(new UnauthorizedError('x')).toBeInstanceOf(HappyMediaError);
    expect(new UnauthorizedError('x').code).toBe('ERR_UNAUTHORIZED');
    expect(new LimitError('x').code).toBe('ERR_LIMIT_EXCEEDED');
  });

  it('a class refuses a code of another class (compile-time)', () => {
    // @ts-expect-error: ERR_DISK is not a storage code.
    const wrong = new StorageError('x', { code: 'ERR_DISK' });
    expect(wrong).toBeInstanceOf(StorageError);
  });

  it('a DecryptionError cannot be given a cause (compile-time)', () => {
    // @ts-expect-error: an authentication failure takes no options, so no cause can leak into it.
    const e = new DecryptionError({ cause: new Error('invalid tag') });
    expect(e.cause).toBeUndefined();
  });

  it('isHappyMediaError narrows to the code asked for', () => {
    const e = caught(new LimitError('too big'));
    if (isHappyMediaError(e, 'ERR_LIMIT_EXCEEDED')) {
      expectTypeOf(e.code).toEqualTypeOf<'ERR_LIMIT_EXCEEDED'>();
    }
    if (isHappyMediaError(e)) expectTypeOf(e.code).toEqualTypeOf<ErrorCode>();
    expect(isHappyMediaError(e, 'ERR_LIMIT_EXCEEDED')).toBe(true);
    expect(isHappyMediaError(e, 'ERR_DISK')).toBe(false);
  });
});
