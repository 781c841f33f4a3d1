/**
 * Reading messages: `parseSessionMessage` (a result, never throws) and `assertSessionMessage` (throws a
 * {@link SchemaError}), in `strict` or `tolerant` mode.
 *
 * - `strict`: exactly the design's types; any unknown field is an error. Use it for what we emit and to
 *   check a producer.
 * - `tolerant` (default for reading): the stream is append-only and forward-compatible, so a newer
 *   writer may add fields we do not know. Those are dropped (the result holds only known, validated
 *   fields), at the top level and inside permission options. A field the protocol *does* define but
 *   that is not allowed where it appears (e.g. `thinking` on a user message, `status` on `text`) is
 *   still an error: that is a broken writer, not a newer one. Unknown `type` values are errors in both
 *   modes; a reader skips such a message.
 *
 * @module
 */
import type * as z from 'zod';
import { SchemaError, type SchemaIssue } from '../errors.js';
import {
  KNOWN_MESSAGE_FIELDS,
  KNOWN_OPTION_FIELDS,
  type SessionMessage,
  SessionMessageSchema,
} from './messages.js';

/** How unknown fields are treated when reading: `strict` rejects them, `tolerant` drops them. */
export type ParseMode = 'strict' | 'tolerant';

/** Options of {@link parseSessionMessage} and {@link assertSessionMessage}. */
export interface ParseOptions {
  /** `tolerant` (default) drops fields the protocol does not define; `strict` rejects them. */
  mode?: ParseMode;
}

/** Result of {@link parseSessionMessage}. */
export type ParseResult = { success: true; data: SessionMessage } | { success: false; error: SchemaError };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick(value: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (known.has(key)) out[key] = value[key];
  return out;
}

/** Drops the fields the protocol does not define (top level and permission options); keeps everything else. */
export function dropUnknownFields(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out = pick(value, KNOWN_MESSAGE_FIELDS);
  if (Array.isArray(out.options)) {
    out.options = out.options.map((option) =>
      isPlainObject(option) ? pick(option, KNOWN_OPTION_FIELDS) : option,
    );
  }
  return out;
}

/** Converts zod issues to our {@link SchemaIssue}s (path, code, message). */
export function toSchemaIssues(issues: readonly z.core.$ZodIssue[]): SchemaIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part)),
    code: issue.code,
    message: issue.message,
  }));
}

/** Formats issues as `path: message; path: message` for an error message. */
export function formatIssues(issues: readonly SchemaIssue[], limit = 5): string {
  const shown = issues
    .slice(0, limit)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  if (issues.length > limit) shown.push(`and ${issues.length - limit} more`);
  return shown.join('; ');
}

function describeTarget(value: unknown): string {
  if (!isPlainObject(value)) return 'session message';
  const type = typeof value.type === 'string' && value.type.length <= 40 ? `"${value.type}"` : 'session';
  return `${type} message`;
}

/**
 * Parses an untrusted value as a session message. Never throws.
 *
 * @example
 * ```ts
 * const result = parseSessionMessage(JSON.parse(line));
 * if (result.success) render(result.data);
 * else console.warn(result.error.code, result.error.issues); // ERR_SCHEMA, [{ path: ['width'], ... }]
 * ```
 */
export function parseSessionMessage(value: unknown, options: ParseOptions = {}): ParseResult {
  const mode = options.mode ?? 'tolerant';
  const input = mode === 'tolerant' ? dropUnknownFields(value) : value;
  const result = SessionMessageSchema.safeParse(input);
  if (result.success) return { success: true, data: result.data };
  const issues = toSchemaIssues(result.error.issues);
  return {
    success: false,
    error: new SchemaError(`invalid ${describeTarget(value)}: ${formatIssues(issues)}`, issues),
  };
}

/**
 * Parses an untrusted value as a session message, or throws.
 *
 * @throws {SchemaError} `ERR_SCHEMA` with `issues` (each with a `path`) when the value is not a valid message.
 * @example
 * ```ts
 * const message = assertSessionMessage(JSON.parse(line), { mode: 'strict' });
 * ```
 */
export function assertSessionMessage(value: unknown, options: ParseOptions = {}): SessionMessage {
  const result = parseSessionMessage(value, options);
  if (!result.success) throw result.error;
  return result.data;
}
