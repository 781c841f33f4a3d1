/**
 * Public surface of the Node media layer: `probeMedia`, its options, and whether ffmpeg is there (the MIME
 * tables, the file-name rules and the binary search are its plumbing, not API).
 *
 * @module
 */
export { ffmpegAvailability, type ToolStatus } from './ffmpeg.js';
export type { BinarySource, ToolName } from './ffmpeg-binaries.js';
export { type ImageLimits, type PictureProbe, thumbhashFromImage } from './image.js';
export {
  DEFAULT_MAX_HEIC_BYTES,
  DEFAULT_MAX_INPUT_PIXELS,
  DEFAULT_MAX_PROBE_OUTPUT_BYTES,
  DEFAULT_MAX_SVG_BYTES,
  DEFAULT_MAX_TOOL_MEMORY_BYTES,
  DEFAULT_PROBE_TIMEOUT_MS,
  type ProbeOptions,
} from './options.js';
export { probeMedia } from './probe.js';
export type { MediaKind, MediaProbe, ProbeStreamInput } from './types.js';
