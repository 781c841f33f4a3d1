/**
 * Public surface of the Node media layer: `probeMedia` and the pieces it is made of.
 *
 * @module
 */
export { DEMUXER_WHITELIST, ffmpegAvailability, type ToolStatus } from './ffmpeg.js';
export { type BinarySource, type LocatedBinary, locateBinary, type ToolName } from './ffmpeg-binaries.js';
export { FALLBACK_FILE_NAME, MAX_FILE_NAME_BYTES, sanitizeFileName } from './file-name.js';
export { type ImageLimits, type PictureProbe, thumbhashFromImage } from './image.js';
export {
  MIME_ALIASES,
  normalizeMimeType,
  OCTET_STREAM,
  sniffMimeType,
  TEXT_TYPES_BY_EXTENSION,
} from './mime.js';
export {
  DEFAULT_MAX_HEIC_BYTES,
  DEFAULT_MAX_INPUT_PIXELS,
  DEFAULT_MAX_PROBE_OUTPUT_BYTES,
  DEFAULT_MAX_SVG_BYTES,
  DEFAULT_MAX_TOOL_MEMORY_BYTES,
  DEFAULT_PROBE_TIMEOUT_MS,
  type ProbeOptions,
} from './options.js';
export { AUDIO_ONLY_TYPES, probeMedia } from './probe.js';
export type { MediaKind, MediaProbe, ProbeStreamInput } from './types.js';
