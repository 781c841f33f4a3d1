import { describe, expect, it } from 'vitest';
import {
  detectContainerType,
  fallbackMimeType,
  looksLikeSvg,
  looksLikeText,
  normalizeMimeType,
  sniffMimeType,
} from '../../../src/node/media/mime.js';
import { sample, samplesDir } from './samples.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('normalizeMimeType', () => {
  it('maps x- and legacy names to the registered ones and drops parameters', () => {
    expect(normalizeMimeType('video/x-matroska')).toBe('video/matroska');
    expect(normalizeMimeType('audio/x-m4a')).toBe('audio/mp4');
    expect(normalizeMimeType('video/x-m4v')).toBe('video/mp4');
    expect(normalizeMimeType('audio/ogg; codecs=opus')).toBe('audio/ogg');
    expect(normalizeMimeType('Image/JPEG')).toBe('image/jpeg');
  });

  it('keeps names that are already what players use', () => {
    expect(normalizeMimeType('video/quicktime')).toBe('video/quicktime');
    expect(normalizeMimeType('video/mp4')).toBe('video/mp4');
    expect(normalizeMimeType('image/heic')).toBe('image/heic');
  });
});

describe('sniffMimeType on generated samples (content, not name)', () => {
  const cases: [string, string][] = [
    ['jpeg-orientation-1.jpg', 'image/jpeg'],
    ['png-alpha.png', 'image/png'],
    ['animated.gif', 'image/gif'],
    ['animated.webp', 'image/webp'],
    ['image.avif', 'image/avif'],
    ['image.tiff', 'image/tiff'],
    ['image.bmp', 'image/bmp'],
    ['image.svg', 'image/svg+xml'],
    ['h264.mp4', 'video/mp4'],
    ['vp9.webm', 'video/webm'],
    ['hevc.mkv', 'video/matroska'],
    ['hevc.mov', 'video/quicktime'],
    ['audio.mp3', 'audio/mpeg'],
    ['audio.m4a', 'audio/mp4'],
    ['audio.opus', 'audio/ogg'],
    ['document.pdf', 'application/pdf'],
    ['archive.zip', 'application/zip'],
    ['notes.txt', 'text/plain'],
    ['data.json', 'application/json'],
    ['table.csv', 'text/csv'],
  ];
  it.each(cases)('%s is %s', async (name, expected) => {
    await samplesDir();
    expect(await sniffMimeType(sample(name))).toBe(expected);
  });

  it('ignores a lying extension when the content has magic', async () => {
    await samplesDir();
    const { readFile } = await import('node:fs/promises');
    const bytes = new Uint8Array(await readFile(sample('png-alpha.png')));
    expect(await sniffMimeType(bytes, 'holiday.mp4')).toBe('image/png');
  });
});

describe('fallback for formats without magic', () => {
  it('recognises SVG by its markup, with or without a prolog, whatever the name', () => {
    expect(looksLikeSvg(utf8('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(true);
    expect(
      looksLikeSvg(
        utf8('\ufeff<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<svg width="1">'),
      ),
    ).toBe(true);
    expect(looksLikeSvg(utf8('<html><svg></svg></html>'))).toBe(false);
    expect(fallbackMimeType(utf8('<svg xmlns="http://www.w3.org/2000/svg"/>'), false, 'x.txt')).toBe(
      'image/svg+xml',
    );
  });

  it('uses the extension only for text content', () => {
    expect(fallbackMimeType(utf8('{"a":1}'), false, 'a.json')).toBe('application/json');
    expect(fallbackMimeType(utf8('a,b\n1,2\n'), false, 'T.CSV')).toBe('text/csv');
    expect(fallbackMimeType(utf8('just words'), false, 'README')).toBe('text/plain');
    // Binary bytes named .json are not JSON.
    expect(fallbackMimeType(new Uint8Array([0, 1, 2, 250, 251, 0]), false, 'a.json')).toBe(
      'application/octet-stream',
    );
    // An .svg name on text that is not SVG markup is plain text.
    expect(fallbackMimeType(utf8('not an svg'), false, 'a.svg')).toBe('text/plain');
  });

  it('judges text by strict UTF-8, tolerating a character cut by the sniff window', () => {
    const text = utf8('héllo wörld é');
    expect(looksLikeText(text.subarray(0, text.length - 1), true)).toBe(true);
    expect(looksLikeText(text.subarray(0, text.length - 1), false)).toBe(false);
    expect(looksLikeText(new Uint8Array([0x68, 0x00, 0x69]), false)).toBe(false);
    expect(looksLikeText(new Uint8Array([0xff, 0xfe, 0x41]), false)).toBe(false);
    expect(looksLikeText(new Uint8Array(0), false)).toBe(false);
  });

  it('reads bytes given as a view at a non-zero offset', async () => {
    const backing = utf8('XXXX{"json":true}');
    expect(await sniffMimeType(backing.subarray(4), 'view.json')).toBe('application/json');
  });

  it('ends at application/octet-stream for unknown binary content', async () => {
    const bytes = new Uint8Array(256);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    expect(await sniffMimeType(bytes, 'mystery.bin')).toBe('application/octet-stream');
  });

  it('rejects an input that is neither a path nor bytes with ERR_INVALID_ARGUMENT', async () => {
    await expect(sniffMimeType(42 as unknown as string)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });
});

describe('SVG with an XML declaration (file-type says XML)', () => {
  it('is still image/svg+xml, and plain XML stays application/xml', async () => {
    const svg = utf8(
      '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="2"/>',
    );
    expect(await sniffMimeType(svg, 'drawing.svg')).toBe('image/svg+xml');
    expect(await sniffMimeType(utf8('<?xml version="1.0"?><note>hi</note>'), 'n.xml')).toBe(
      'application/xml',
    );
  });
});

describe('detectContainerType (the bare file-type answer playback uses)', () => {
  it('names a container from a file or bytes, and says undefined (never throws) when it knows none', async () => {
    await samplesDir();
    expect(await detectContainerType(sample('png-alpha.png'))).toBe('image/png');
    expect(await detectContainerType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(await detectContainerType(new TextEncoder().encode('just text'))).toBeUndefined();
    expect(await detectContainerType(sample('no-such-file'))).toBeUndefined();
  });

  it('is the bare answer: no text fallback, unlike sniffMimeType', async () => {
    const text = new TextEncoder().encode('{"a":1}');
    expect(await detectContainerType(text)).toBeUndefined();
    expect(await sniffMimeType(text, 'a.json')).toBe('application/json');
  });
});
