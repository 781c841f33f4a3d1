import { isCuid } from '@paralleldrive/cuid2';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/core/errors.js';
import {
  createMediaRef,
  createMessageId,
  isMediaRef,
  isRef,
  MAX_MACHINE_PATH_LENGTH,
  MAX_MEDIA_ID_LENGTH,
  parseRef,
  RefSchema,
} from '../../../src/core/protocol/index.js';

function expectInvalidRef(ref: unknown): StorageError {
  try {
    parseRef(ref as string);
  } catch (error) {
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('ERR_INVALID_REF');
    expect(RefSchema.safeParse(ref).success).toBe(false);
    expect(isRef(ref)).toBe(false);
    return error as StorageError;
  }
  throw new Error(`expected ${JSON.stringify(ref)} to be rejected`);
}

describe('refs', () => {
  it('creates media/<cuid2> refs that parse, are unique and are safe storage keys', () => {
    const refs = new Set(Array.from({ length: 200 }, () => createMediaRef()));
    expect(refs.size).toBe(200);
    for (const ref of refs) {
      expect(ref).toMatch(/^media\/[a-z0-9]{24}$/);
      const parsed = parseRef(ref);
      expect(parsed.scheme).toBe('media');
      if (parsed.scheme === 'media') expect(isCuid(parsed.id)).toBe(true);
      expect(isMediaRef(ref)).toBe(true);
    }
  });

  it('parses the design refs and other short ids', () => {
    expect(parseRef('media/upload_abc123')).toEqual({ scheme: 'media', id: 'upload_abc123' });
    expect(parseRef('media/up_1')).toEqual({ scheme: 'media', id: 'up_1' });
    expect(parseRef('media/A-b_9')).toEqual({ scheme: 'media', id: 'A-b_9' });
    expect(parseRef(`media/${'a'.repeat(MAX_MEDIA_ID_LENGTH)}`).scheme).toBe('media');
  });

  it('parses machine-file refs with an absolute path, literally', () => {
    expect(parseRef('machine-file:///home/me/shot.png')).toEqual({
      scheme: 'machine-file',
      path: '/home/me/shot.png',
    });
    expect(parseRef('machine-file:///tmp/a%20b.png')).toEqual({
      scheme: 'machine-file',
      path: '/tmp/a%20b.png',
    });
    expect(parseRef('machine-file://C:\\Users\\me\\a.png')).toEqual({
      scheme: 'machine-file',
      path: 'C:\\Users\\me\\a.png',
    });
    expect(parseRef('machine-file:///home/me/my file (2).png').scheme).toBe('machine-file');
    expect(isMediaRef('machine-file:///tmp/a.png')).toBe(false);
    expect(isRef('machine-file:///tmp/a.png')).toBe(true);
  });

  it.each([
    'media/',
    'media/../../etc/passwd',
    'media/..',
    'media/a/b',
    'media/a.b',
    'media/a b',
    'media/a%2Fb',
    'media/a\u0000',
    'media/a\nb',
    `media/${'a'.repeat(MAX_MEDIA_ID_LENGTH + 1)}`,
    'Media/abc',
    '/media/abc',
    'upload_abc123',
    '',
    'https://example.com/media/abc',
    'machine-file://',
    'machine-file://relative/path.png',
    'machine-file:///home/me/../secret',
    'machine-file:///home/./me',
    'machine-file://C:\\a\\..\\b',
    'machine-file:///tmp/a\u0000b',
    'machine-file:///tmp/a\u001bb',
    `machine-file:///${'a'.repeat(MAX_MACHINE_PATH_LENGTH)}`,
  ])('rejects %j with ERR_INVALID_REF', (ref) => {
    expectInvalidRef(ref);
  });

  it('rejects non-strings with ERR_INVALID_REF and never echoes the ref', () => {
    for (const value of [null, undefined, 42, {}, ['media/a']]) expectInvalidRef(value);
    const error = expectInvalidRef('media/secret-ish/../x');
    expect(error.message).not.toContain('secret-ish');
  });

  it('creates cuid2-shaped message ids: 24 characters, a letter first, every character uniform', () => {
    const ids = Array.from({ length: 100_000 }, () => createMessageId());
    expect(new Set(ids).size).toBe(ids.length);
    const first = new Map<string, number>();
    const rest = new Map<string, number>();
    for (const id of ids) {
      expect(isCuid(id)).toBe(true);
      expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
      first.set(id[0]!, (first.get(id[0]!) ?? 0) + 1);
      for (const c of id.slice(1)) rest.set(c, (rest.get(c) ?? 0) + 1);
    }
    // Uniform within 10 % of the expected count (3,846 per letter first, 63,900 per character after): over
    // 6 standard deviations, so a fair generator does not fail it.
    expect(first.size).toBe(26);
    for (const count of first.values())
      expect(Math.abs(count - ids.length / 26)).toBeLessThan(ids.length / 26 / 10);
    expect(rest.size).toBe(36);
    for (const count of rest.values())
      expect(Math.abs(count - (ids.length * 23) / 36)).toBeLessThan((ids.length * 23) / 360);
  });
});
