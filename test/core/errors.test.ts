import { describe, expect, it } from 'vitest';
import {
  DecryptionError,
  FormatError,
  HappyMediaError,
  InvalidArgumentError,
  isHappyMediaError,
  ProbeError,
  SchemaError,
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
