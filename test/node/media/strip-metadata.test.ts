/**
 * Private photos: the metadata stripper (src/core/media/strip/) on pictures and videos made here with
 * location and identifying metadata (sharp's `withExif`/`withXmp`, ffmpeg's `-metadata`). Every file comes
 * out the same size, decodes to the same pixels (sharp, libheif) or frames (ffmpeg's framemd5), shows
 * upright (the orientation is kept), and holds none of the planted values: no GPS IFD, no camera make,
 * model or serial, owner, lens, software or original time, no XMP location, no QuickTime location. The
 * plan made with random access and the single pass over a stream (in pieces of any size) give the same
 * bytes; a single pass that cannot reach metadata behind it fails with ERR_NOT_SUPPORTED.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { bufferRangeSource, type RangeSource } from '../../../src/core/blob/random-access.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { planMetadataStrip } from '../../../src/core/media/strip/strip-metadata.js';
import { isMetadataStripRefusal } from '../../../src/core/media/strip/strip-refusal.js';
import { sendPickedMedia } from '../../../src/core/send/index.js';
import { locateBinary } from '../../../src/node/media/ffmpeg-binaries.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { readSentFile, sendMedia } from '../../../src/node/send/index.js';
import { LocalBlobStore } from '../../../src/node/storage/index.js';
import { runCli } from '../../helpers/cli.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { memoryStore } from '../../helpers/memory-store.js';
import {
  holdsText,
  pictureExifTags,
  piecesOf,
  shownPixels,
  stripPlanned,
  stripThrough,
  videoFrames,
} from '../../helpers/strip-check.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { buildDerivedHeif } from './heif-builder.js';

const run = promisify(execFile);
const ffmpeg = locateBinary('ffmpeg').path;
const ffprobe = locateBinary('ffprobe').path;

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-strip-');
});
afterAll(() => tmp.cleanup());

/** What the camera wrote: every value is a secret the stripped file must not hold. */
const EXIF = {
  IFD0: { Make: 'AcmeCam', Model: 'SecretModel9', Software: 'SneakyOS 1.2', Artist: 'Jane Doe' },
  IFD2: {
    BodySerialNumber: 'SN12345XYZ',
    CameraOwnerName: 'Owner Name',
    DateTimeOriginal: '2024:01:02 03:04:05',
    LensModel: 'LensX 50mm',
  },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '48/1 51/1 2964/100',
    GPSLongitudeRef: 'E',
    GPSLongitude: '2/1 17/1 4000/100',
  },
};
const SECRETS = [
  'AcmeCam',
  'SecretModel9',
  'SneakyOS',
  'Jane Doe',
  'SN12345XYZ',
  'Owner Name',
  '2024:01:02',
  'LensX',
  'GPSLatitude',
];
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.49N" exif:GPSLongitude="2,17.67E"/>' +
  '</rdf:RDF></x:xmpmeta>';

/** A picture with structure, so that a turned or damaged decode shows. */
function scene(width: number, height: number) {
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      rgb[o] = (x * 255) / width;
      rgb[o + 1] = (y * 255) / height;
      rgb[o + 2] = (x ^ y) & 255;
    }
  }
  return sharp(rgb, { raw: { width, height, channels: 3 } });
}

function noSecrets(bytes: Uint8Array): string[] {
  return SECRETS.filter((secret) => holdsText(bytes, secret));
}

/** Strips both ways and checks they agree and keep the size. */
async function stripBothWays(bytes: Uint8Array): Promise<Uint8Array> {
  const planned = await stripPlanned(bytes);
  expect(planned.length).toBe(bytes.length);
  for (const piece of [1, 13, 4096]) {
    if (piece === 1 && bytes.length > 50_000) continue;
    expect(
      Buffer.from(await stripThrough(bytes, piece)).equals(Buffer.from(planned)),
      `pieces of ${piece}`,
    ).toBe(true);
  }
  return planned;
}

describe('pictures: JPEG, PNG, WebP', () => {
  it.each([
    ['JPEG', (image: Sharp) => image.jpeg({ quality: 92 })],
    ['PNG', (image: Sharp) => image.png()],
    ['WebP', (image: Sharp) => image.webp({ quality: 90 })],
  ] as const)('%s: location and camera gone, orientation kept, the same pixels', async (name, encode) => {
    const original = new Uint8Array(
      await encode(scene(120, 80).withExif(EXIF).withXmp(XMP).withMetadata({ orientation: 6 })).toBuffer(),
    );
    // What there is to remove (a PNG's XMP is compressed, so not every value shows as text).
    expect(noSecrets(original).length).toBeGreaterThanOrEqual(SECRETS.length - 1);
    const stripped = await stripBothWays(original);
    expect(noSecrets(stripped)).toEqual([]);
    const { tags, meta } = await pictureExifTags(stripped);
    expect(tags).toEqual({ ifd0: [0x0112], exif: [], gps: [], ifd1: [] });
    expect(meta.orientation).toBe(6);
    expect(meta.xmp === undefined || !holdsText(new Uint8Array(meta.xmp), 'GPS')).toBe(true);
    expect(
      (await shownPixels(stripped, tmp.dir, name)).equals(await shownPixels(original, tmp.dir, name)),
    ).toBe(true);
    // A PNG's rewritten chunks carry valid CRCs: libpng, told to fail on any warning, still reads it.
    if (name === 'PNG')
      await expect(sharp(stripped, { failOn: 'warning' }).raw().toBuffer()).resolves.toBeTruthy();
  });

  it('JPEG: comments, IPTC and vendor segments are zeroed; ICC and Adobe kept; a trailer zeroed, a second picture walked', async () => {
    const base = new Uint8Array(
      await scene(64, 48).withIccProfile('p3').withExif(EXIF).jpeg({ quality: 90 }).toBuffer(),
    );
    const segment = (marker: number, text: string) => {
      const payload = Buffer.from(text, 'latin1');
      return Buffer.concat([
        Buffer.from([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 255]),
        payload,
      ]);
    };
    // After SOI: a comment, an APP13 (Photoshop/IPTC) and an APP10 vendor block.
    const withSegments = Buffer.concat([
      base.subarray(0, 2),
      segment(0xfe, 'Secret comment Jane Doe'),
      segment(0xed, 'Photoshop 3.0\0' + '8BIM city=SecretTown'),
      segment(0xea, 'VENDOR SecretModel9'),
      base.subarray(2),
    ]);
    const second = await scene(32, 24).withExif(EXIF).jpeg().toBuffer();
    const file = new Uint8Array(Buffer.concat([withSegments, second, Buffer.from('TRAILER SecretTown')]));
    const stripped = await stripBothWays(file);
    expect(noSecrets(stripped)).toEqual([]);
    expect(holdsText(stripped, 'SecretTown')).toBe(false);
    expect(holdsText(stripped, 'ICC_PROFILE')).toBe(true);
    const meta = await sharp(stripped).metadata();
    expect(meta.icc?.length).toBe((await sharp(file).metadata()).icc?.length);
    expect(
      (await shownPixels(stripped, tmp.dir, 'segments')).equals(await shownPixels(file, tmp.dir, 'segments')),
    ).toBe(true);
    // The second picture, where it was: still decodes to its pixels, its EXIF stripped too.
    const secondAt = withSegments.length;
    const secondStripped = stripped.subarray(secondAt, secondAt + second.length);
    expect((await sharp(secondStripped).raw().toBuffer()).equals(await sharp(second).raw().toBuffer())).toBe(
      true,
    );
    expect((await pictureExifTags(secondStripped)).tags.gps).toEqual([]);
  });

  it('leaves other formats, and what follows damage, as they are', async () => {
    const pdf = new Uint8Array(Buffer.from('%PDF-1.4\n1 0 obj <</Author (Jane Doe)>> endobj\n%%EOF\n'));
    expect(Buffer.from(await stripBothWays(pdf)).equals(Buffer.from(pdf))).toBe(true);
    const jpeg = new Uint8Array(await scene(64, 48).withExif(EXIF).jpeg().toBuffer());
    // A segment length that runs past the end: nothing after it can be located.
    const damaged = jpeg.slice(0, 40);
    expect((await stripBothWays(damaged)).length).toBe(40);
  });
});

/** An MP4 (moov first) and a MOV (moov last) with location, camera and time, encoded by ffmpeg. */
async function plantedVideos(): Promise<{ first: Uint8Array; last: Uint8Array }> {
  const first = join(tmp.dir, 'first.mp4');
  const last = join(tmp.dir, 'last.mov');
  const tags = [
    '-metadata',
    'location=+48.8577+002.2950/',
    '-metadata',
    'make=AcmeCam',
    '-metadata',
    'model=SecretModel9',
    '-metadata',
    'creation_time=2024-01-02T03:04:05Z',
  ];
  await run(ffmpeg, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', ...tags, '-movflags', '+faststart+use_metadata_tags', first],
  ]);
  await run(ffmpeg, [
    ...['-v', 'error', '-y', '-i', first, '-map', '0', '-c', 'copy', ...tags],
    ...['-metadata', 'com.apple.quicktime.location.ISO6709=+48.8577+002.2950+035.000/'],
    ...['-movflags', 'use_metadata_tags', last],
  ]);
  return { first: new Uint8Array(await readFile(first)), last: new Uint8Array(await readFile(last)) };
}

/**
 * A video with a timed-metadata track: a subtitle track of GPS fixes whose handler is turned into `meta`
 * (the handler of Apple's `mebx`, GoPro's GPMF), moov first or last.
 */
async function withTimedMetadata(moovFirst: boolean): Promise<Uint8Array> {
  const srt = join(tmp.dir, 'gps.srt');
  await writeFile(
    srt,
    '1\n00:00:00,000 --> 00:00:01,000\nGPSFIX +48.8577+002.2950\n\n2\n00:00:01,000 --> 00:00:02,000\nGPSFIX +48.8578+002.2951\n',
  );
  const out = join(tmp.dir, `timed-${moovFirst}.mp4`);
  await run(ffmpeg, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-i', srt, '-t', '2'],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:s', 'mov_text'],
    ...(moovFirst ? ['-movflags', '+faststart'] : []),
    out,
  ]);
  const bytes = new Uint8Array(await readFile(out));
  const text = Buffer.from(bytes).toString('latin1');
  const at = text.indexOf('hdlr\0\0\0\0\0\0\0\0sbtl');
  expect(at).toBeGreaterThan(0);
  bytes.set(Buffer.from('meta', 'latin1'), at + 12);
  return bytes;
}

describe('videos: MP4 and MOV', () => {
  it('location, make, model and recording time are gone from moov first and last; the same frames', async () => {
    const { first, last } = await plantedVideos();
    for (const [name, video] of [
      ['first.mp4', first],
      ['last.mov', last],
    ] as const) {
      expect(holdsText(video, '48.8577')).toBe(true);
      const stripped = await stripBothWays(video);
      for (const secret of ['48.8577', 'AcmeCam', 'SecretModel9'])
        expect(holdsText(stripped, secret)).toBe(false);
      const before = await videoFrames(ffmpeg, ffprobe, video, tmp.dir, `before-${name}`);
      const after = await videoFrames(ffmpeg, ffprobe, stripped, tmp.dir, `after-${name}`);
      expect(after.frames).toBe(before.frames);
      expect(before.tags).toMatch(/location|creation_time/);
      expect(after.tags).not.toMatch(/location|make|model|creation_time|ISO6709/);
    }
  });

  it('a timed-metadata track goes with its samples; one pass cannot reach them behind the moov', async () => {
    for (const moovFirst of [true, false]) {
      const video = await withTimedMetadata(moovFirst);
      expect(holdsText(video, 'GPSFIX')).toBe(true);
      const planned = await stripPlanned(video);
      expect(holdsText(planned, 'GPSFIX')).toBe(false);
      const before = await videoFrames(ffmpeg, ffprobe, video, tmp.dir, `timed-before-${moovFirst}.mp4`);
      const after = await videoFrames(ffmpeg, ffprobe, planned, tmp.dir, `timed-after-${moovFirst}.mp4`);
      expect(after.frames).toBe(before.frames);
      if (moovFirst) {
        expect(Buffer.from(await stripThrough(video, 4096)).equals(Buffer.from(planned))).toBe(true);
      } else {
        expect(await rejectionCodeOf(stripThrough(video, 4096))).toBe('ERR_NOT_SUPPORTED');
      }
    }
  });

  it('refuses an index box too large to hold with ERR_LIMIT_EXCEEDED', async () => {
    // A 200 MiB file (never held) whose moov claims 100 MiB.
    const head = new Uint8Array(32);
    head.set([0, 0, 0, 16, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 0, 0]);
    head.set([0x06, 0x40, 0, 0, 0x6d, 0x6f, 0x6f, 0x76], 16);
    const source: RangeSource = {
      size: async () => 200 << 20,
      read: async (offset, length) =>
        offset < 32 ? head.slice(offset, offset + length) : new Uint8Array(length),
    };
    expect(await rejectionCodeOf(planMetadataStrip(source))).toBe('ERR_LIMIT_EXCEEDED');
    // A refusal keepMetadata avoids, told apart from other limits (the CLI hints --keep-metadata on it).
    const refusal = await planMetadataStrip(source).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isMetadataStripRefusal(refusal)).toBe(true);
  });
});

describe('HEIC: Exif and XMP items', () => {
  it('are overwritten where they lie; the picture decodes to the same pixels and probes the same', async () => {
    const exif = (await sharp(await scene(16, 16).withExif(EXIF).jpeg().toBuffer()).metadata()).exif!;
    const heic = new Uint8Array(
      await buildDerivedHeif(ffmpeg, tmp.dir, {
        kind: 'grid',
        hiddenTiles: true,
        primary: 'first',
        exif: new Uint8Array(exif.subarray(6)),
        xmp: XMP,
        thumbnail: { width: 240, height: 160 },
      }),
    );
    expect(noSecrets(heic).length).toBeGreaterThan(0);
    const stripped = await stripBothWays(heic);
    expect(noSecrets(stripped)).toEqual([]);
    expect(holdsText(stripped, '48,51')).toBe(false);
    const { tags } = await pictureExifTags(stripped);
    expect(tags.gps).toEqual([]);
    expect(
      (await shownPixels(stripped, tmp.dir, 'heic-after')).equals(
        await shownPixels(heic, tmp.dir, 'heic-before'),
      ),
    ).toBe(true);
    const [a, b] = [join(tmp.dir, 'a.heic'), join(tmp.dir, 'b.heic')];
    await writeFile(a, heic);
    await writeFile(b, stripped);
    const { name: _a, ...before } = await probeMedia(a, { heifDecPath: false });
    const { name: _b, ...after } = await probeMedia(b, { heifDecPath: false });
    expect(after).toEqual(before);
  });
});

describe('planning reads little', () => {
  it('a video: the structure only, not the media data', async () => {
    const { first } = await plantedVideos();
    let read = 0;
    const inner = bufferRangeSource(first);
    await planMetadataStrip({
      size: inner.size,
      read: async (offset, length) => {
        read += length;
        return inner.read(offset, length);
      },
    });
    expect(read).toBeLessThan(first.length / 4);
  });
});

describe('sending: stripped by default, kept on request', () => {
  const blobKey = randomBytes(32);
  const THUMBHASH = '1QcSHQRnh493V4dIh4eXh1h4kJUI';

  async function sentBytes(store: ReturnType<typeof memoryStore>, ref: string): Promise<Uint8Array> {
    return decryptBlob(store.blobs.get(ref)!, blobKey, { context: mediaBlobContext(ref) });
  }

  it('sendPickedMedia: bytes, a stream with random access and a bare stream all lose the location', async () => {
    const photo = new Uint8Array(await scene(120, 80).withExif(EXIF).jpeg().toBuffer());
    const expected = await stripPlanned(photo);
    const picked = {
      name: 'IMG_1.JPG',
      mimeType: 'image/jpeg',
      width: 120,
      height: 80,
      thumbhash: THUMBHASH,
    };
    for (const source of [
      photo,
      { stream: piecesOf(photo, 3000), size: photo.length, ranges: bufferRangeSource(photo) },
      { stream: piecesOf(photo, 3000), size: photo.length },
    ]) {
      const store = memoryStore();
      const { ref, ciphertextSize } = await sendPickedMedia({ ...picked, source }, { store, blobKey });
      const sent = await sentBytes(store, ref);
      expect(Buffer.from(sent).equals(Buffer.from(expected))).toBe(true);
      expect(noSecrets(sent)).toEqual([]);
      expect(store.created).toEqual([ciphertextSize]);
    }
    const store = memoryStore();
    const kept = await sendPickedMedia({ ...picked, source: photo }, { store, blobKey, keepMetadata: true });
    expect(Buffer.from(await sentBytes(store, kept.ref)).equals(Buffer.from(photo))).toBe(true);
    expect(
      await rejectionCodeOf(
        sendPickedMedia({ ...picked, source: photo }, { store, blobKey, keepMetadata: 'no' as never }),
      ),
    ).toBe('ERR_INVALID_ARGUMENT');
  });

  it('sendPickedMedia: a bare stream that one pass cannot strip stores nothing; with random access it goes', async () => {
    const video = await withTimedMetadata(false);
    const picked = {
      name: 'clip.mp4',
      mimeType: 'video/mp4',
      width: 160,
      height: 120,
      durationMs: 2000,
      thumbhash: THUMBHASH,
    };
    const store = memoryStore();
    const bare = () =>
      sendPickedMedia(
        { ...picked, source: { stream: piecesOf(video, 3000), size: video.length } },
        { store, blobKey },
      );
    const code = await rejectionCodeOf(bare());
    expect(code).toBe('ERR_NOT_SUPPORTED');
    expect(
      isMetadataStripRefusal(
        await bare().then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    ).toBe(true);
    expect(store.blobs.size).toBe(0);
    const { ref } = await sendPickedMedia(
      {
        ...picked,
        source: { stream: piecesOf(video, 3000), size: video.length, ranges: bufferRangeSource(video) },
      },
      { store, blobKey },
    );
    expect(holdsText(await sentBytes(store, ref), 'GPSFIX')).toBe(false);
  });

  it('sendMedia and `send`: stripped, the message the probe of the original gives; --keep-metadata keeps it', async () => {
    const path = join(tmp.dir, 'planted.jpg');
    const photo = new Uint8Array(
      await scene(120, 80).withExif(EXIF).withMetadata({ orientation: 6 }).jpeg().toBuffer(),
    );
    await writeFile(path, photo);
    const store = new LocalBlobStore(join(tmp.dir, 'blobs'));
    const result = await sendMedia(path, { store, blobKey });
    expect(result.message).toMatchObject({ type: 'photo', width: 80, height: 120 });
    const stored = new Uint8Array(await readFile(join(tmp.dir, 'blobs', result.ref)));
    const sent = await decryptBlob(stored, blobKey, { context: mediaBlobContext(result.ref) });
    expect(Buffer.from(sent).equals(Buffer.from(await stripPlanned(photo)))).toBe(true);

    const keyFile = join(tmp.dir, 'blob.key');
    await writeFile(keyFile, Buffer.from(blobKey).toString('base64'));
    for (const [flags, keeps] of [
      [[], false],
      [['--keep-metadata'], true],
    ] as const) {
      const cli = await runCli([
        'send',
        path,
        '--store',
        join(tmp.dir, 'blobs'),
        '--key-file',
        keyFile,
        ...flags,
      ]);
      expect(cli.code, cli.stderr).toBe(0);
      const { ref } = JSON.parse(cli.stdout).message as { ref: string };
      const bytes = await decryptBlob(new Uint8Array(await readFile(join(tmp.dir, 'blobs', ref))), blobKey, {
        context: mediaBlobContext(ref),
      });
      expect(noSecrets(bytes).length === 0).toBe(!keeps);
      expect(bytes.length).toBe(photo.length);
    }
  });

  it('readSentFile: the bytes sendMedia sends, stripped or kept; a missing path is ERR_UNREADABLE_INPUT', async () => {
    const path = join(tmp.dir, 'read-as-sent.jpg');
    const photo = new Uint8Array(await scene(120, 80).withExif(EXIF).jpeg().toBuffer());
    await writeFile(path, photo);
    const store = new LocalBlobStore(join(tmp.dir, 'blobs'));
    for (const keepMetadata of [false, true]) {
      const result = await sendMedia(path, { store, blobKey, keepMetadata });
      const stored = new Uint8Array(await readFile(join(tmp.dir, 'blobs', result.ref)));
      const sent = await decryptBlob(stored, blobKey, { context: mediaBlobContext(result.ref) });
      const read = new Uint8Array(
        await new Response(await readSentFile(path, { keepMetadata })).arrayBuffer(),
      );
      expect(Buffer.from(read).equals(Buffer.from(sent))).toBe(true);
      expect(noSecrets(read).length === 0).toBe(!keepMetadata);
    }
    await expect(rejectionCodeOf(readSentFile(join(tmp.dir, 'missing.jpg')))).resolves.toBe(
      'ERR_UNREADABLE_INPUT',
    );
  });
});
