/**
 * happy-media/mappers: the kit a provider mapper is written with (the root entry has the mappers
 * themselves: `createAgentMapper`, `getMapperProvider`, `detectAgentLog`, `mapAgentOutput`): the session
 * writer every built-in mapper writes through, the registry, the skip reasons, and the description of a
 * media message (docs/mappers.md).
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
 */
export {
  CALL_UNFINISHED_ERROR,
  type CallFields,
  describeMediaMessage,
  type EventContext,
  type FileDescription,
  MAPPER_PROVIDERS,
  type MapperClock,
  type MapperSkip,
  type MediaData,
  type MediaDescription,
  type MediaInfo,
  type MediaUpload,
  type PermissionFields,
  type PhotoDescription,
  type Placement,
  type ProviderMapper,
  SessionWriter,
  type SessionWriterOptions,
  SKIP_REASONS,
  type SkipCounts,
  type SkipReason,
  type VideoDescription,
} from './core/mappers/index.js';
