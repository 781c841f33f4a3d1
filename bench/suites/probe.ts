/**
 * Probing: a 12 MP JPEG through `probeMedia` (dimensions after EXIF, thumbhash) beside sharp's
 * shrink-on-load resize alone (the floor of any thumbnail), and a 1080p H.264 clip beside a bare
 * `ffprobe` process on the same file (the floor of any video probe). HEIC (when heif-enc is there to
 * make one): the same 12 MP picture with a thumbnail item beside the JPEG (goal: ≤ 3× its time), and
 * without one, decoded by the system's libheif decoder beside libheif-js (WebAssembly). Inputs are
 * generated once into the cache dir.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { probeMedia } from 'happy-media/node';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import type { Measurement } from '../harness/figures.js';
import {
  FFPROBE,
  hasFfmpeg,
  hasHeifEnc,
  heic12mp,
  heifDecoderOnPath,
  photo12mp,
  video1080p,
} from '../harness/inputs.js';
import { timeInterleaved } from '../harness/measure.js';
import { summarize } from '../harness/stats.js';

const execFileAsync = promisify(execFile);

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const { default: sharp } = await import('sharp');
  const plan = ctx.quick ? { warmup: 0, runs: 2 } : { warmup: 1, runs: 7 };

  const photo = await photo12mp(ctx.inputsDir);
  const p = await probeMedia(photo);
  if (p.kind !== 'photo' || p.width !== 4000 || p.height !== 3000 || !p.thumbhash) {
    throw new Error(
      `12 MP JPEG probed as ${JSON.stringify({ kind: p.kind, width: p.width, height: p.height })}`,
    );
  }
  rec.check('12 MP JPEG probes as a 4000×3000 photo with a thumbhash');
  const [photoMs, resizeMs] = await timeInterleaved(
    [
      () => probeMedia(photo),
      () => sharp(photo).resize(100, 100, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer(),
    ],
    plan,
  );
  const ours = rec.add({
    id: 'probe.photo',
    suite: 'probe',
    label: 'probeMedia 12 MP JPEG',
    unit: 'ms',
    summary: summarize(photoMs!),
  });
  const ref = rec.add({
    id: 'ref.probe.sharp-resize',
    suite: 'probe',
    label: 'sharp shrink-on-load resize to 100 px',
    unit: 'ms',
    reference: true,
    summary: summarize(resizeMs!),
  });
  rec.compare(ours, ref);

  await heicRows(ctx, rec, plan, ours);

  if (!(await hasFfmpeg())) {
    ctx.log('  video probe skipped: ffmpeg/ffprobe not found (apt-get install ffmpeg)');
    return;
  }
  const video = await video1080p(ctx.inputsDir);
  const v = await probeMedia(video);
  if (
    v.kind !== 'video' ||
    v.width !== 1920 ||
    v.height !== 1080 ||
    Math.abs((v.durationMs ?? 0) - 5000) > 200
  ) {
    throw new Error(
      `1080p clip probed as ${JSON.stringify({ kind: v.kind, width: v.width, height: v.height, durationMs: v.durationMs })}`,
    );
  }
  rec.check('1080p H.264 clip probes as a 1920×1080 video of 5 s with a thumbhash');
  const [videoMs, ffprobeMs] = await timeInterleaved(
    [
      () => probeMedia(video),
      () =>
        execFileAsync(FFPROBE, ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', video], {
          timeout: 30_000,
        }),
    ],
    plan,
  );
  const vOurs = rec.add({
    id: 'probe.video',
    suite: 'probe',
    label: 'probeMedia 1080p H.264 5 s',
    unit: 'ms',
    summary: summarize(videoMs!),
  });
  const vRef = rec.add({
    id: 'ref.probe.ffprobe',
    suite: 'probe',
    label: 'bare ffprobe process',
    unit: 'ms',
    reference: true,
    summary: summarize(ffprobeMs!),
  });
  rec.compare(vOurs, vRef);
}

/**
 * HEIC of the JPEG's pixel size: with a thumbnail item (its ThumbHash from the thumbnail, the size from
 * the properties) beside the JPEG, and without one, the system decoder beside libheif-js.
 */
async function heicRows(
  ctx: BenchContext,
  rec: SuiteRecorder,
  plan: { warmup: number; runs: number },
  jpeg: Measurement,
): Promise<void> {
  if (!(await hasHeifEnc())) {
    ctx.log('  HEIC probe skipped: heif-enc not found (apt-get install libheif-examples)');
    return;
  }
  const withThumbnail = await heic12mp(ctx.inputsDir, true);
  const withoutThumbnail = await heic12mp(ctx.inputsDir, false);
  // What probeMedia picks by default (heifDecPath): HEIF_DEC_PATH, else heif-dec or heif-convert.
  const systemDecoder = process.env.HEIF_DEC_PATH ?? heifDecoderOnPath();
  const jpegPath = await photo12mp(ctx.inputsDir);
  for (const [path, options] of [
    [withThumbnail, {}],
    [withoutThumbnail, { heifDecPath: false as const }],
    ...(systemDecoder ? [[withoutThumbnail, {}] as const] : []),
  ] as const) {
    const p = await probeMedia(path, options);
    if (p.kind !== 'photo' || p.width !== 4000 || p.height !== 3000 || !p.thumbhash) {
      throw new Error(
        `12 MP HEIC probed as ${JSON.stringify({ kind: p.kind, width: p.width, height: p.height })}`,
      );
    }
  }
  rec.check('12 MP HEIC (with and without a thumbnail item) probes as a 4000×3000 photo with a thumbhash');
  const [thumbMs, jpegMs] = await timeInterleaved(
    [() => probeMedia(withThumbnail), () => probeMedia(jpegPath)],
    plan,
  );
  const heicThumb = rec.add({
    id: 'probe.heic-thumbnail',
    suite: 'probe',
    label: 'probeMedia 12 MP HEIC with a thumbnail item (goal ≤ 3× the JPEG)',
    unit: 'ms',
    summary: summarize(thumbMs!),
  });
  const jpegAgain = rec.add({
    ...jpeg,
    id: 'ref.probe.jpeg-12mp',
    label: 'probeMedia 12 MP JPEG (same pixel size)',
    reference: true,
    summary: summarize(jpegMs!),
  });
  rec.compare(heicThumb, jpegAgain);
  const cases = [() => probeMedia(withoutThumbnail, { heifDecPath: false })];
  if (systemDecoder) cases.push(() => probeMedia(withoutThumbnail));
  const [wasmMs, systemMs] = await timeInterleaved(cases, { ...plan, runs: Math.min(plan.runs, 5) });
  const wasm = rec.add({
    id: 'probe.heic-libheif-js',
    suite: 'probe',
    label: 'probeMedia 12 MP HEIC without a thumbnail, libheif-js (WebAssembly)',
    unit: 'ms',
    reference: true,
    summary: summarize(wasmMs!),
  });
  if (!systemDecoder) {
    ctx.log('  HEIC system decoder row skipped: no heif-dec/heif-convert (apt-get install libheif-examples)');
    return;
  }
  const system = rec.add({
    id: 'probe.heic-system-decoder',
    suite: 'probe',
    label: `probeMedia 12 MP HEIC without a thumbnail, system decoder (${systemDecoder.split('/').pop()})`,
    unit: 'ms',
    summary: summarize(systemMs!),
  });
  rec.compare(system, wasm);
}

/** The probe suite. */
export const probeSuite: Suite = {
  name: 'probe',
  description:
    'probe a 12 MP JPEG (vs sharp resize alone), the same as HEIC (with a thumbnail item vs the JPEG; without, system decoder vs libheif-js) and a 1080p H.264 clip (vs bare ffprobe)',
  run,
};
