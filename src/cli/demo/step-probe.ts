/**
 * Demo step 2: probe every sample and check what the probe says (MIME by content, display size after
 * rotation, thumbhash).
 *
 * @module
 */
import { basename } from 'node:path';
import { probeMedia } from '../../node/index.js';
import type { DemoItem } from './demo-state.js';
import { describeProbe } from './describe.js';
import type { DemoRecorder } from './report.js';
import { DEMO_PHOTO_SIZE, DEMO_VIDEO_SIZE } from './samples.js';

/** Probes each item (filling in `item.probe`); `true` when the step ran, `undefined` when it failed. */
export async function probeSamples(rec: DemoRecorder, items: DemoItem[]): Promise<true | undefined> {
  return rec.step('Probe (MIME by content, dimensions after rotation, thumbhash)', async (s) => {
    for (const item of items) {
      item.probe = await probeMedia(item.path);
      s.info(`${basename(item.path).padEnd(18)} ${describeProbe(item.probe)}`);
    }
    const [photo, video, pdf] = ['photo', 'video', 'PDF'].map((l) => items.find((i) => i.label === l)?.probe);
    s.check(
      `photo is a ${DEMO_PHOTO_SIZE.width}×${DEMO_PHOTO_SIZE.height} image/jpeg photo with a thumbhash`,
      photo?.kind === 'photo' &&
        photo.mimeType === 'image/jpeg' &&
        photo.width === DEMO_PHOTO_SIZE.width &&
        photo.height === DEMO_PHOTO_SIZE.height &&
        !!photo.thumbhash,
    );
    // The video is optional (no ffmpeg, no video): its check is only made when there is one.
    if (video) {
      s.check(
        `video recorded sideways reports its display size ${DEMO_VIDEO_SIZE.height}×${DEMO_VIDEO_SIZE.width} (90° display matrix applied), ~${DEMO_VIDEO_SIZE.durationMs / 1000} s, thumbhash`,
        video.kind === 'video' &&
          video.width === DEMO_VIDEO_SIZE.height &&
          video.height === DEMO_VIDEO_SIZE.width &&
          Math.abs((video.durationMs ?? 0) - DEMO_VIDEO_SIZE.durationMs) <= 150 &&
          !!video.thumbhash,
      );
    }
    s.check('PDF is an application/pdf file', pdf?.kind === 'file' && pdf.mimeType === 'application/pdf');
    return true as const;
  });
}
