/**
 * The two wrappers Happy puts around a session-protocol message before sealing it (both are seen in the
 * wild):
 *
 * ```
 * CLI:  { "role": "session", "content": <content>, "meta": { "sentFrom": "cli" } }
 * app:  { "role": "session", "content": { "type": "session", "data": <content> } }
 * ```
 * The wrappers are generic in `<content>`: in Happy the wrapper is the plaintext that gets sealed into
 * `{ t: "encrypted", c }`, and its content is the session message; read with {@link openRaw} and then
 * {@link unwrapSessionContent}.
 *
 * @module
 */
import { describeValue } from '../bytes.js';
import { FormatError } from '../errors.js';

/** The wrapper Happy's CLI writes. */
export type CliSessionWrapper<T> = { role: 'session'; content: T; meta: { sentFrom: 'cli' } };

/** The wrapper Happy's app writes. */
export type AppSessionWrapper<T> = { role: 'session'; content: { type: 'session'; data: T } };

/**
 * Wraps `content` as Happy's CLI does.
 *
 * @example
 * ```ts
 * sealRaw(wrapForCli(message), key);
 * ```
 */
export function wrapForCli<T>(content: T): CliSessionWrapper<T> {
  return { role: 'session', content, meta: { sentFrom: 'cli' } };
}

/**
 * Wraps `content` as Happy's app does.
 *
 * @example
 * ```ts
 * sealRaw(wrapForApp(message), key);
 * ```
 */
export function wrapForApp<T>(content: T): AppSessionWrapper<T> {
  return { role: 'session', content: { type: 'session', data: content } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Returns the content of either wrapper (the app's is recognised by `content.type === "session"` with a
 * `data` field; anything else under `content` is the CLI's form). The content itself is not checked.
 *
 * @throws {FormatError} `ERR_FORMAT` unless `value` is an object with `role: "session"` and a `content`.
 * @example
 * ```ts
 * const message = parseSessionMessage(unwrapSessionContent(openRaw(envelope, key)));
 * ```
 */
export function unwrapSessionContent(value: unknown): unknown {
  if (!isRecord(value) || value.role !== 'session' || !('content' in value)) {
    throw new FormatError(
      `expected a session wrapper { "role": "session", "content": ... } but received ${isRecord(value) ? `an object with \`role\` ${typeof value.role === 'string' ? JSON.stringify(value.role.slice(0, 40)) : describeValue(value.role)}` : describeValue(value)}`,
    );
  }
  const content = value.content;
  if (isRecord(content) && content.type === 'session' && 'data' in content) return content.data;
  return content;
}
