/**
 * Running the metadata stripper both ways (a plan from random access, then a pass; and one pass over a
 * stream cut into pieces), and the checks every stripped file must pass: the same size, the same
 * pixels or frames, and no location left. Shared by the unit tests and the conformance suite.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { bufferRangeSource } from '../../src/core/blob/random-access.js';
import { joinBytes } from '../../src/core/bytes.js';
import {
  type MetadataStripPlan,
  planMetadataStrip,
  stripMetadataStream,
} from '../../src/core/media/strip/strip-metadata.js';
import { decodeHeicFile } from '../../src/node/media/heic.js';
import { exifTags } from './exif-tags.js';

const run = promisify(execFile);

/** `bytes` as a stream of `piece`-byte pieces. */
export function piecesOf(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
}

/** Strips `bytes` through the stream, with `plan` or in one pass, fed `piece` bytes at a time. */
export async function stripThrough(
  bytes: Uint8Array,
  piece: number,
  plan?: MetadataStripPlan,
): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  const reader = piecesOf(bytes, piece).pipeThrough(stripMetadataStream(bytes.length, plan)).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(value);
  }
  return joinBytes(out);
}

/** Strips with a plan made from random access to the bytes. */
export async function stripPlanned(bytes: Uint8Array, piece = 64 * 1024): Promise<Uint8Array> {
  return stripThrough(bytes, piece, await planMetadataStrip(bufferRangeSource(bytes)));
}

/** True when `needle` (Latin-1 text) occurs in `bytes`. */
export function holdsText(bytes: Uint8Array, needle: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(
    Buffer.from(needle, 'latin1'),
  );
}

/** The EXIF tags sharp reads from a picture (JPEG, PNG, WebP, HEIF, AVIF), by IFD. */
export async function pictureExifTags(bytes: Uint8Array) {
  const meta = await sharp(bytes).metadata();
  return { tags: exifTags(meta.exif ? new Uint8Array(meta.exif) : undefined), meta };
}

/** Pixels as shown (orientation applied), 8-bit RGBA: sharp for what it decodes, libheif for HEIC. */
export async function shownPixels(bytes: Uint8Array, dir: string, name: string): Promise<Buffer> {
  const head = Buffer.from(bytes.subarray(4, 12)).toString('latin1');
  if (/^ftyp(heic|heix|mif1|msf1)/.test(head)) {
    const path = join(dir, `${name}.heic`);
    await writeFile(path, bytes);
    const decoded = await decodeHeicFile(path, { maxBytes: 1 << 30, maxPixels: 1 << 30 });
    return Buffer.from(decoded.rgba);
  }
  return sharp(bytes, { failOn: 'error', pages: -1 }).autoOrient().ensureAlpha().raw().toBuffer();
}

/** One MD5 per decoded video frame (ffmpeg's framemd5 of the first video stream), and the tags ffprobe sees. */
export async function videoFrames(
  ffmpeg: string,
  ffprobe: string,
  bytes: Uint8Array,
  dir: string,
  name: string,
): Promise<{ frames: string; tags: string }> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  const { stdout } = await run(ffmpeg, ['-v', 'error', '-i', path, '-map', '0:v:0', '-f', 'framemd5', '-'], {
    maxBuffer: 64 << 20,
  });
  const frames = stdout
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .join('\n');
  const probe = await run(ffprobe, [
    '-v',
    'error',
    '-show_entries',
    'format_tags:stream_tags',
    '-of',
    'json',
    path,
  ]);
  return { frames, tags: probe.stdout };
}
