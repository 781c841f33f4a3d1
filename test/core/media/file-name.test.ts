import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_NAME_BYTES, sanitizeFileName } from '../../../src/core/media/file-name.js';

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe('sanitizeFileName', () => {
  it('keeps only the last path component, for / and \\', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('C:\\Users\\me\\photo.jpg')).toBe('photo.jpg');
    expect(sanitizeFileName('/tmp/dir/')).toBe('file');
  });

  it('removes control, bidi-override and zero-width characters', () => {
    expect(sanitizeFileName('inv\u202Efdp.exe')).toBe('invfdp.exe');
    expect(sanitizeFileName('a\u0000b\u001b[31mc\u007f.txt')).toBe('ab[31mc.txt');
    expect(sanitizeFileName('zero\u200Bwidth\uFEFF.png')).toBe('zerowidth.png');
  });

  it('never returns an empty name, "." or ".."', () => {
    for (const bad of ['', '.', '..', '   ', '\u0001\u0002', 'dir/..', '...']) {
      expect(sanitizeFileName(bad)).toBe('file');
    }
  });

  it('normalises to NFC and keeps ordinary Unicode', () => {
    expect(sanitizeFileName('Cafe\u0301 menu.pdf')).toBe('Café menu.pdf');
    expect(sanitizeFileName('写真 2024.heic')).toBe('写真 2024.heic');
  });

  it('shortens long names to 255 UTF-8 bytes and keeps the extension', () => {
    const long = `${'é'.repeat(300)}.jpeg`;
    const clean = sanitizeFileName(long);
    expect(bytes(clean)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(clean.endsWith('.jpeg')).toBe(true);
  });

  it('property: output is safe for any input string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (input) => {
        const out = sanitizeFileName(input);
        expect(out.length).toBeGreaterThan(0);
        expect(out).not.toMatch(/[/\\\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(['.', '..']).not.toContain(out);
        expect(bytes(out)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
        expect(sanitizeFileName(out)).toBe(out);
      }),
    );
  });

  it('rejects a non-string with ERR_INVALID_ARGUMENT', () => {
    expect(() => sanitizeFileName(undefined as unknown as string)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });
});
