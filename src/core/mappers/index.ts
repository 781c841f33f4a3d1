/**
 * Mapping agent output into Session Protocol v2: the kit every provider mapper shares (the
 * {@link SessionWriter}, media hand-off, skips, clock), the provider registry, and the mappers.
 * See docs/mappers.md.
 *
 * @module
 */
export {
  type AgentMapper,
  type AgentMapperOptions,
  createAgentMapper,
  type MappedOutput,
  mapAgentOutput,
} from './agent-mapper.js';
export { type MapperClock, systemClock } from './clock.js';
export { type AgentLogFormat, type DetectedAgentLog, detectAgentLog } from './detect.js';
export type { EventContext, MapperProvider, ProviderMapper } from './mapper-provider.js';
export {
  DEFAULT_MAX_MEDIA_BYTES,
  describeMediaMessage,
  type FileDescription,
  type MediaData,
  type MediaDescription,
  type MediaHandler,
  type MediaUpload,
  type PhotoDescription,
  type VideoDescription,
} from './media.js';
export { getMapperProvider, MAPPER_PROVIDERS } from './providers.js';
export {
  CALL_UNFINISHED_ERROR,
  type CallFields,
  type MediaInfo,
  type PermissionFields,
  type Placement,
  SessionWriter,
  type SessionWriterOptions,
} from './session-writer.js';
export { type MapperSkip, SKIP_REASONS, type SkipCounts, type SkipReason } from './skips.js';
