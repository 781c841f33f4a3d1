/**
 * The `errors` namespace of the root entry (`import { errors } from 'happy-media'`): every error class,
 * each with its stable `ERR_*` codes, and the two questions callers ask of an error (is it ours, may it be
 * retried). The base class `HappyMediaError` is also exported by name from the root. Callers branch on
 * `code`; `instanceof` groups the codes by family (src/core/errors.ts).
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
 */
export {
  AbortedError,
  DecryptionError,
  DiskError,
  type ErrorCode,
  FormatError,
  type FormatErrorCode,
  HappyMediaError,
  type HappyMediaErrorOptions,
  InternalError,
  InvalidArgumentError,
  isHappyMediaError,
  LimitError,
  MissingDependencyError,
  NotSupportedError,
  ProbeError,
  type ProbeErrorCode,
  SchemaError,
  type SchemaIssue,
  StorageError,
  type StorageErrorCode,
  StreamError,
  UnauthorizedError,
} from './core/errors.js';
export { isRetryableError } from './core/transport/index.js';
