/**
 * One error tree for the whole library.
 *
 * Every error we throw is a {@link HappyMediaError} with a stable `code` (`ERR_*`) that callers branch
 * on; messages are for people and may change. Subclasses group the codes by family (format, decryption,
 * schema, probe, storage, limits, ...), so `instanceof` works for coarse handling and `code` for fine
 * handling.
 *
 * `cause`, one policy everywhere:
 * - **Kept** when we turn a failure we did not make into ours: I/O (a file system errno error, a network
 *   or `fetch` failure, an S3 SDK error, a child process), a dependency's refusal (sharp, libheif, a
 *   serialiser), a caller's callback. It says what happened below us; branch on `code`, never on it.
 * - **Never on an authentication failure**: {@link DecryptionError} takes no options at all. Which check
 *   failed (a cipher's "invalid tag", a length, a format check that led to it) is exactly the oracle the
 *   one uniform error exists to withhold.
 * - **Never when it could carry a secret**: an error whose message quotes its input (`JSON.parse` of a
 *   decrypted plaintext, a decoder given a key) is dropped, not kept.
 * - Our own errors pass through as they are, not wrapped again.
 *
 * Secrets (keys, tokens, plaintext) never go into a message or a cause.
 *
 * @module
 */

/** Every stable error code the library can produce. Tests pin these, not the prose. */
export type ErrorCode =
  // arguments, and the command line's usage (the CLI's `UsageError`; the library never throws it)
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_USAGE'
  // wire formats
  | 'ERR_FORMAT'
  | 'ERR_UNSUPPORTED_VERSION'
  // authentication: one code for every failure, so it cannot serve as an oracle
  | 'ERR_DECRYPTION_FAILED'
  // schemas and streams
  | 'ERR_SCHEMA'
  | 'ERR_STREAM_INVALID'
  // limits
  | 'ERR_LIMIT_EXCEEDED'
  // media probing
  | 'ERR_PROBE_FAILED'
  | 'ERR_PROBE_TIMEOUT'
  | 'ERR_FFMPEG_MISSING'
  | 'ERR_UNREADABLE_INPUT'
  // storage and transport
  | 'ERR_STORAGE'
  | 'ERR_NOT_FOUND'
  | 'ERR_INVALID_REF'
  | 'ERR_DOWNLOAD_FAILED'
  | 'ERR_UPLOAD_FAILED'
  // a server refused the credentials (token or signature)
  | 'ERR_UNAUTHORIZED'
  // local disk
  | 'ERR_DISK'
  // control flow
  | 'ERR_ABORTED'
  // installation and platform
  | 'ERR_DEPENDENCY_MISSING'
  | 'ERR_NOT_SUPPORTED'
  // an invariant of the library broke (a bug, or a component passed in that breaks its contract)
  | 'ERR_INTERNAL';

/** Options accepted by every error constructor. */
export interface HappyMediaErrorOptions {
  /** The underlying error, kept for debugging. Never a secret. */
  cause?: unknown;
}

/**
 * Base class of every error thrown by happy-media.
 *
 * @example
 * ```ts
 * try { openMessage(envelope, key); }
 * catch (e) { if (e instanceof HappyMediaError && e.code === 'ERR_DECRYPTION_FAILED') showLocked(); }
 * ```
 */
export class HappyMediaError extends Error {
  /**
   * Stable machine-readable code, e.g. `ERR_DECRYPTION_FAILED`. Each subclass narrows its type, so
   * `if (e instanceof StorageError)` narrows `e.code` to {@link StorageErrorCode}.
   */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: HappyMediaErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** A parameter of the wrong type, length or range (a programming error of the caller). */
export class InvalidArgumentError extends HappyMediaError {
  declare readonly code: 'ERR_INVALID_ARGUMENT';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_INVALID_ARGUMENT', message, options);
  }
}

/** The codes a {@link FormatError} carries. */
export type FormatErrorCode = 'ERR_FORMAT' | 'ERR_UNSUPPORTED_VERSION';

/** Bytes or text whose layout cannot be what it claims to be (too short, bad base64, unknown version). */
export class FormatError extends HappyMediaError {
  declare readonly code: FormatErrorCode;

  constructor(message: string, options?: HappyMediaErrorOptions & { code?: FormatErrorCode }) {
    super(options?.code ?? 'ERR_FORMAT', message, options);
  }
}

/**
 * Authentication failed. Deliberately one message for every cause (wrong key, flipped bit, truncation,
 * reordering, wrong commitment) and never a `cause`, so that the error tells an attacker nothing: the
 * constructor takes no options.
 */
export class DecryptionError extends HappyMediaError {
  declare readonly code: 'ERR_DECRYPTION_FAILED';

  constructor() {
    super('ERR_DECRYPTION_FAILED', 'decryption failed: the data is not authentic for this key');
  }
}

/** One problem found by a schema, located by its path inside the value. */
export interface SchemaIssue {
  /** Where the problem is, e.g. `["options", 0, "kind"]`. */
  path: (string | number)[];
  /** zod's issue code, e.g. `invalid_type`, `unrecognized_keys`. */
  code: string;
  /** Human-readable description. */
  message: string;
}

/** A value that does not match the expected schema; `issues` lists every problem with its path. */
export class SchemaError extends HappyMediaError {
  declare readonly code: 'ERR_SCHEMA';

  /** Every problem found, with its path. */
  readonly issues: SchemaIssue[];

  constructor(message: string, issues: SchemaIssue[], options?: HappyMediaErrorOptions) {
    super('ERR_SCHEMA', message, options);
    this.issues = issues;
  }
}

/** A stream of messages that breaks the append-only rules (see the stream validator). */
export class StreamError extends HappyMediaError {
  declare readonly code: 'ERR_STREAM_INVALID';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_STREAM_INVALID', message, options);
  }
}

/** A configured or inherent limit was hit (size, pixels, chunk count, time). */
export class LimitError extends HappyMediaError {
  declare readonly code: 'ERR_LIMIT_EXCEEDED';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_LIMIT_EXCEEDED', message, options);
  }
}

/** The codes a {@link ProbeError} carries. */
export type ProbeErrorCode =
  | 'ERR_PROBE_FAILED'
  | 'ERR_PROBE_TIMEOUT'
  | 'ERR_FFMPEG_MISSING'
  | 'ERR_UNREADABLE_INPUT';

/** Media probing failed (tool crashed, timed out, or is missing). */
export class ProbeError extends HappyMediaError {
  declare readonly code: ProbeErrorCode;

  constructor(message: string, options?: HappyMediaErrorOptions & { code?: ProbeErrorCode }) {
    super(options?.code ?? 'ERR_PROBE_FAILED', message, options);
  }
}

/** The codes a {@link StorageError} carries. */
export type StorageErrorCode =
  | 'ERR_STORAGE'
  | 'ERR_NOT_FOUND'
  | 'ERR_INVALID_REF'
  | 'ERR_DOWNLOAD_FAILED'
  | 'ERR_UPLOAD_FAILED';

/** A storage backend or transport failed, or a ref is missing or invalid. */
export class StorageError extends HappyMediaError {
  declare readonly code: StorageErrorCode;

  constructor(message: string, options?: HappyMediaErrorOptions & { code?: StorageErrorCode }) {
    super(options?.code ?? 'ERR_STORAGE', message, options);
  }
}

/**
 * A server refused the credentials: a bearer token it does not accept (revoked, of another server, or
 * not a token at all) or a sign-in signature it did not verify. Never retried; the message says which
 * credentials to check, never their value.
 */
export class UnauthorizedError extends HappyMediaError {
  declare readonly code: 'ERR_UNAUTHORIZED';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_UNAUTHORIZED', message, options);
  }
}

/** The local file system failed (temp file, rename, fsync, permissions). */
export class DiskError extends HappyMediaError {
  declare readonly code: 'ERR_DISK';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_DISK', message, options);
  }
}

/** The operation was cancelled through its AbortSignal. */
export class AbortedError extends HappyMediaError {
  declare readonly code: 'ERR_ABORTED';

  constructor(message = 'the operation was aborted', options?: HappyMediaErrorOptions) {
    super('ERR_ABORTED', message, options);
  }
}

/**
 * An optional package that this call needs is not installed (e.g. sharp for image probing, the S3 client
 * for an S3 store): `happy-media` keeps its Node media stack as optional peer dependencies so an app that
 * uses only the universal entry installs none of it. The message names the package and how to install it.
 *
 * @example
 * ```ts
 * try { await probeMedia('photo.jpg'); }
 * catch (e) { if (e instanceof MissingDependencyError) console.error(`npm i ${e.dependency}`); }
 * ```
 */
export class MissingDependencyError extends HappyMediaError {
  declare readonly code: 'ERR_DEPENDENCY_MISSING';
  /** The npm package that is missing, e.g. `sharp`. */
  readonly dependency: string;

  constructor(dependency: string, message: string, options?: HappyMediaErrorOptions) {
    super('ERR_DEPENDENCY_MISSING', message, options);
    this.dependency = dependency;
  }
}

/**
 * The runtime lacks what this call needs (a browser without Service Workers). Feature-detect before the
 * call, or fall back (e.g. `downloadMedia` instead of streaming through a Service Worker).
 *
 * @example
 * ```ts
 * try { await registerMediaServiceWorker('sw.js'); }
 * catch (e) { if (e instanceof NotSupportedError) useDownloadInstead(); else throw e; }
 * ```
 */
export class NotSupportedError extends HappyMediaError {
  declare readonly code: 'ERR_NOT_SUPPORTED';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_NOT_SUPPORTED', message, options);
  }
}

/**
 * An invariant of the library broke: a bug in happy-media, or a component passed to it that does not keep
 * its contract (an AES-GCM implementation that returned a ciphertext of the wrong length, an internal
 * engine driven out of order). Never the caller's input and never an authentication failure: report it.
 * The CLI prints any error that is not a `HappyMediaError` with this code too.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof InternalError) reportBug(e); }
 * ```
 */
export class InternalError extends HappyMediaError {
  declare readonly code: 'ERR_INTERNAL';

  constructor(message: string, options?: HappyMediaErrorOptions) {
    super('ERR_INTERNAL', message, options);
  }
}

/** True when `value` is a happy-media error, optionally with the given code. */
export function isHappyMediaError<C extends ErrorCode = ErrorCode>(
  value: unknown,
  code?: C,
): value is HappyMediaError & { readonly code: C } {
  return value instanceof HappyMediaError && (code === undefined || value.code === code);
}

/**
 * The error of `code` again, as its class, for an error that crossed a boundary that keeps only data (a
 * Service Worker's reply, a `MessagePort`): `instanceof` and the narrowed `code` work on the other side
 * as they did before it. What a class carries besides its message (a schema error's issues, the missing
 * dependency's name) does not cross; such an error comes back as its class without it, or as the base
 * class.
 *
 * @internal For the library's own boundaries (src/web); not exported from the package.
 * @example
 * ```ts
 * throw reviveError(reply.code, reply.message); // DecryptionError for ERR_DECRYPTION_FAILED, ...
 * ```
 */
export function reviveError(code: ErrorCode, message: string): HappyMediaError {
  switch (code) {
    case 'ERR_INVALID_ARGUMENT':
      return new InvalidArgumentError(message);
    case 'ERR_FORMAT':
    case 'ERR_UNSUPPORTED_VERSION':
      return new FormatError(message, { code });
    case 'ERR_DECRYPTION_FAILED':
      return new DecryptionError();
    case 'ERR_SCHEMA':
      return new SchemaError(message, []);
    case 'ERR_STREAM_INVALID':
      return new StreamError(message);
    case 'ERR_LIMIT_EXCEEDED':
      return new LimitError(message);
    case 'ERR_PROBE_FAILED':
    case 'ERR_PROBE_TIMEOUT':
    case 'ERR_FFMPEG_MISSING':
    case 'ERR_UNREADABLE_INPUT':
      return new ProbeError(message, { code });
    case 'ERR_STORAGE':
    case 'ERR_NOT_FOUND':
    case 'ERR_INVALID_REF':
    case 'ERR_DOWNLOAD_FAILED':
    case 'ERR_UPLOAD_FAILED':
      return new StorageError(message, { code });
    case 'ERR_UNAUTHORIZED':
      return new UnauthorizedError(message);
    case 'ERR_DISK':
      return new DiskError(message);
    case 'ERR_ABORTED':
      return new AbortedError(message);
    case 'ERR_NOT_SUPPORTED':
      return new NotSupportedError(message);
    case 'ERR_INTERNAL':
      return new InternalError(message);
    default:
      return new HappyMediaError(code, message);
  }
}
