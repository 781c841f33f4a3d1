/**
 * The demo (`happy-media demo`): the whole mission on the embedded default, checked end to end.
 *
 * @module
 */
export { minimalPdf } from './pdf.js';
export type { DemoCheck, DemoReport, DemoStep } from './report.js';
export { type DemoOptions, runDemo } from './run-demo.js';
export {
  createDemoSamples,
  DEMO_PHOTO_SIZE,
  DEMO_VIDEO_SIZE,
  type DemoSamples,
  type DemoTools,
} from './samples.js';
