/**
 * URLs are checked by their text (React Native's own `URL` lacks `protocol` and `origin`), so the one
 * reader of a URL's scheme and origin must agree with the WHATWG parser on what it reads.
 */
import { describe, expect, it } from 'vitest';
import { urlScheme } from '../../../src/core/transport/base-url.js';

describe('urlScheme', () => {
  it.each([
    'https://cdn.example:8443/a/b?c=d#e',
    'http://127.0.0.1:3105/v1/sessions',
    'HTTP://Example.COM/x',
    'file:///etc/passwd',
    'data:text/plain,hi',
    'javascript:alert(1)',
    'ftp://files.example/pub',
  ])('reads %s as the WHATWG parser does', (text) => {
    const url = new URL(text);
    const parts = urlScheme(text);
    expect(parts?.scheme).toBe(url.protocol.slice(0, -1));
    if (url.protocol === 'http:' || url.protocol === 'https:') expect(parts?.origin).toBe(url.origin);
  });

  it('keeps credentials out of the origin', () => {
    expect(urlScheme('https://user:secret@cdn.example/x')?.origin).toBe('https://cdn.example');
  });

  it('is undefined for text without a scheme', () => {
    expect(urlScheme('/relative/path')).toBeUndefined();
    expect(urlScheme('')).toBeUndefined();
  });
});
