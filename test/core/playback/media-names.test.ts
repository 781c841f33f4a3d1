/**
 * File names for verified media (Node's files and streaming endpoint, the app's expo sink and cache):
 * letters and digits of any script survive, paths, controls and bidi overrides do not, the extension
 * comes from the MIME type, then the name, then `.bin`.
 */
import { describe, expect, it } from 'vitest';
import { mediaFileName, safeFileStem } from '../../../src/core/playback/media-names.js';

describe('media file names', () => {
  it.each([
    ['Fotos vom Südstrand.jpeg', 'image/jpeg', 'Fotos vom Südstrand.jpg'],
    ['отчёт 2024.pdf', 'application/pdf', 'отчёт 2024.pdf'],
    ['日本語のファイル.txt', undefined, '日本語のファイル.txt'],
    ['../../etc/passwd', 'text/plain', 'passwd.txt'],
    ['a\u202Egnp.exe', undefined, 'a_gnp.exe'],
    ['.hidden', 'video/mp4', 'media.mp4'],
    ['tab\there$(rm).mov', 'video/quicktime', 'tab_here_(rm).mov'],
    [undefined, undefined, 'media.bin'],
  ])('%j as %s → %s', (name, mimeType, expected) => {
    expect(mediaFileName(name, mimeType).name).toBe(expected);
  });

  it('keeps stems short', () => {
    expect(safeFileStem('x'.repeat(500))).toHaveLength(80);
  });
});
