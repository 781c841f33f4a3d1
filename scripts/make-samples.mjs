#!/usr/bin/env node
// Generates the media samples the tests probe (sharp + ffmpeg), so no binary sample lives in git.
//
//   node scripts/make-samples.mjs [OUT_DIR]        (default: samples/generated)
//
// Every sample is tiny (a few KiB, at most a few seconds of 160x120 video) so the whole set takes a few
// seconds on two cores. The directory is built in a temp sibling and renamed into place, so parallel
// test files that all ask for it never see a half-written set; a `VERSION` stamp decides whether an
// existing set is current. samples/README.md lists every file and what it is for.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

const run = promisify(execFile);
/** Bump when the set of samples or their content changes. */
const VERSION = '4';
const here = dirname(fileURLToPath(import.meta.url));
const defaultOut = resolve(here, '..', 'samples', 'generated');

/** A 48x32 landscape picture with four distinct quadrants, so orientation and colour are checkable. */
function quadrants(width = 48, height = 32) {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y < height / 2;
      const left = x < width / 2;
      const [r, g, b] = top ? (left ? [220, 30, 30] : [30, 200, 30]) : left ? [30, 30, 220] : [230, 230, 40];
      data.set([r, g, b], (y * width + x) * 3);
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/**
 * The ffmpeg the package itself would use (FFMPEG_PATH → PATH → the bundled optional dependency), through
 * the built package; before a build, only FFMPEG_PATH or the PATH.
 */
async function locateFfmpeg() {
  try {
    const { locateBinary } = await import('../dist/src/node/media/ffmpeg-binaries.js');
    return locateBinary('ffmpeg');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return { path: process.env.FFMPEG_PATH || 'ffmpeg', source: 'env or PATH (dist/ not built)' };
  }
}
let located;

async function ffmpeg(args) {
  located ??= await locateFfmpeg();
  try {
    await run(located.path, ['-hide_banner', '-v', 'error', '-nostdin', '-y', ...args], { timeout: 60_000 });
  } catch (error) {
    // Say which ffmpeg and which sample, so a build lacking an encoder or filter is obvious.
    const why = error.stderr?.trim().split('\n').pop() || error.message;
    throw new Error(`ffmpeg (${located.source}: ${located.path}) failed making ${args.at(-1)}: ${why}`, {
      cause: error,
    });
  }
}

/** A minimal but valid PDF (one empty page) with a correct xref table. */
function minimalPdf() {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A valid ZIP archive holding one stored (uncompressed) file. */
function minimalZip(name = 'hello.txt', content = Buffer.from('hello from happy-media\n')) {
  const fileName = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const centralOffset = local.length + fileName.length + content.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, fileName, content, central, fileName, end]);
}

/** Writes every sample into `dir` (which must exist and be empty), then the `stamp`. */
async function generate(dir, stamp) {
  const at = (name) => join(dir, name);
  await Promise.all([
    ...imageJobs(at),
    ...animatedJobs(at),
    ...videoJobs(at),
    ...audioJobs(at),
    ...fileJobs(at),
  ]);
  await writeFile(at('VERSION'), stamp);
}

/** Still images (sharp). Orientation o is stored landscape 48x32; 5-8 display as portrait 32x48. */
function imageJobs(at) {
  const jobs = [];
  for (let o = 1; o <= 8; o++) {
    jobs.push(
      quadrants()
        .jpeg({ quality: 90 })
        .withMetadata({ orientation: o })
        .toFile(at(`jpeg-orientation-${o}.jpg`)),
    );
  }
  const alpha = Buffer.alloc(64 * 64 * 4);
  for (let i = 0; i < 64 * 64; i++) alpha.set([20, 90, 240, i % 64 < 32 ? 255 : 0], i * 4);
  jobs.push(
    sharp(alpha, { raw: { width: 64, height: 64, channels: 4 } })
      .png()
      .toFile(at('png-alpha.png')),
  );
  jobs.push(quadrants(64, 32).toColourspace('rgb16').png().toFile(at('png-16bit.png')));
  jobs.push(quadrants(64, 40).toColourspace('cmyk').jpeg().toFile(at('jpeg-cmyk.jpg')));
  jobs.push(quadrants(60, 40).avif({ effort: 0 }).toFile(at('image.avif')));
  jobs.push(quadrants(60, 40).tiff().toFile(at('image.tiff')));
  jobs.push(quadrants(60, 40).webp().toFile(at('image.webp')));
  jobs.push(
    writeFile(
      at('image.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">' +
        '<rect width="120" height="60" fill="#1e90ff"/><circle cx="60" cy="30" r="20" fill="#ffd700"/></svg>\n',
    ),
  );
  return jobs;
}

/** Animated images and a BMP (which sharp cannot decode but ffmpeg can), via ffmpeg. */
function animatedJobs(at) {
  const jobs = [];
  jobs.push(
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=5:duration=1', '-loop', '0', at('animated.gif')]),
  );
  jobs.push(
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x48:rate=5:duration=1',
      '-c:v',
      'libwebp',
      '-loop',
      '0',
      at('animated.webp'),
    ]),
  );
  jobs.push(ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=40x30', '-frames:v', '1', at('image.bmp')]));
  return jobs;
}

/** Videos: a red picture whose first 0.2 s is black (the poster frame must not be black), a rotated one, VP9, HEVC, and a Matroska file cut in half. */
function videoJobs(at) {
  const jobs = [];
  const redAfterBlack = ['-f', 'lavfi', '-i', 'color=c=red:size=160x120:rate=25:duration=4'];
  const fadeIn = ['-vf', 'fade=type=in:start_time=0.2:duration=0.04', '-pix_fmt', 'yuv420p'];
  jobs.push(
    ffmpeg([
      ...redAfterBlack,
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=4',
      ...fadeIn,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-c:a',
      'aac',
      '-shortest',
      at('h264.mp4'),
    ]).then(() =>
      // Display matrix 90°: stored 160x120, shown upright as 120x160.
      ffmpeg(['-i', at('h264.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', at('rotated-90.mp4')]),
    ),
  );
  const small = ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=1', '-pix_fmt', 'yuv420p'];
  jobs.push(
    ffmpeg([
      ...small,
      '-c:v',
      'libvpx-vp9',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-b:v',
      '200k',
      at('vp9.webm'),
    ]),
  );
  const x265 = ['-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error'];
  jobs.push(ffmpeg([...small, ...x265, at('hevc.mkv')]));
  jobs.push(ffmpeg([...small, ...x265, '-tag:v', 'hvc1', at('hevc.mov')]));
  // A Matroska file cut in half: its header still claims 6 s, its packets end near 3 s.
  jobs.push(
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=25:duration=6',
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '25',
      at('full-6s.mkv'),
    ]).then(async () => {
      const whole = await readFile(at('full-6s.mkv'));
      await writeFile(at('truncated-lying-duration.mkv'), whole.subarray(0, Math.floor(whole.length / 2)));
      await rm(at('full-6s.mkv'));
    }),
  );
  return jobs;
}

/** Audio (these are `file` messages with a duration). */
function audioJobs(at) {
  const jobs = [];
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=330:duration=1.5'];
  jobs.push(ffmpeg([...tone, '-c:a', 'libmp3lame', '-b:a', '64k', at('audio.mp3')]));
  jobs.push(ffmpeg([...tone, '-c:a', 'aac', '-b:a', '64k', at('audio.m4a')]));
  jobs.push(ffmpeg([...tone, '-c:a', 'libopus', '-b:a', '32k', at('audio.opus')]));
  return jobs;
}

/** Plain files, and a PNG cut off in its pixel data. */
function fileJobs(at) {
  const jobs = [];
  jobs.push(writeFile(at('document.pdf'), minimalPdf()));
  jobs.push(writeFile(at('archive.zip'), minimalZip()));
  jobs.push(writeFile(at('notes.txt'), 'Plain UTF-8 text: héllo, wörld.\nSecond line.\n'));
  jobs.push(writeFile(at('data.json'), '{"hello":"world","n":[1,2,3]}\n'));
  jobs.push(writeFile(at('table.csv'), 'name,size\nalpha,1\nbeta,2\n'));
  // A file that claims to be a PNG (right signature and header) but is cut off in its pixel data.
  const noise = Buffer.alloc(96 * 96 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  jobs.push(
    sharp(noise, { raw: { width: 96, height: 96, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
      .then((png) => writeFile(at('truncated.png'), png.subarray(0, Math.floor(png.length / 2)))),
  );
  return jobs;
}

/**
 * Makes sure the current sample set exists in `out` and returns its path. Safe to call from several
 * processes at once.
 */
export async function makeSamples(out = defaultOut) {
  const stamp = join(out, 'VERSION');
  // The stamp names the ffmpeg too: builds differ in details (an AAC encoder's priming shifts a duration
  // by 24 ms), so switching between the system's and the bundled ffmpeg regenerates the set.
  located ??= await locateFfmpeg();
  const current = `${VERSION} ${located.path}`;
  if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === current) return out;
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(tmp, { recursive: true });
  try {
    await generate(tmp, current);
    // Another process may have finished first while we generated: keep its set (tests may be using it).
    if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === current) return out;
    await rm(out, { recursive: true, force: true });
    try {
      await rename(tmp, out);
    } catch (error) {
      // Another process renamed its complete set into place first: that set is as good as ours.
      if (!existsSync(stamp)) throw error;
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const out = await makeSamples(process.argv[2] ? resolve(process.argv[2]) : defaultOut);
  console.log(`samples ready in ${out} (${Date.now() - started} ms)`);
}
