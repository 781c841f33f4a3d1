/**
 * Media references: the `ref` field of `photo`, `video` and `file` messages.
 *
 * Two schemes exist:
 * - `media/<id>`: a blob uploaded (encrypted) to the server. The id is 1–{@link MAX_MEDIA_ID_LENGTH}
 *   characters of `A-Z a-z 0-9 _ -` only, so `media/<id>` is safe to use as a storage key or a URL path
 *   segment as it is: no `/`, no `.`, no `..`, no control or percent characters. We create cuid2-shaped ids.
 * - `machine-file://<path>`: a file on the agent's machine, by absolute path. The path is taken
 *   literally (it is not a URL: no percent-decoding, so each path has one spelling); it must be
 *   absolute (POSIX `/...` or Windows `C:\...`), contain no `.` or `..` segment and no control character.
 *
 * Any other string is not a ref. Bad refs throw {@link StorageError} with code `ERR_INVALID_REF`,
 * because the storage layer is where a ref becomes a key; inside a message, the schema reports the
 * same reason as a schema issue on `ref`.
 *
 * @module
 */
import * as z from 'zod';
import { describeValue } from '../bytes.js';
import { StorageError } from '../errors.js';
import { hasControlCharacters } from './fields.js';
import { createMessageId } from './ids.js';

/** Prefix of server-upload refs. */
export const MEDIA_REF_PREFIX = 'media/';
/** Prefix of machine-file refs. */
export const MACHINE_FILE_REF_PREFIX = 'machine-file://';
/** Longest id in a `media/<id>` ref, in characters. */
export const MAX_MEDIA_ID_LENGTH = 128;
/** Longest path in a `machine-file://<path>` ref, in characters. */
export const MAX_MACHINE_PATH_LENGTH = 4096;

const MEDIA_ID = /^[A-Za-z0-9_-]+$/;
const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** A parsed ref: which scheme, and the id or path it names. */
export type ParsedRef = { scheme: 'media'; id: string } | { scheme: 'machine-file'; path: string };

type RefCheck = { ok: true; ref: ParsedRef } | { ok: false; reason: string };

function checkRef(ref: unknown): RefCheck {
  if (typeof ref !== 'string')
    return { ok: false, reason: `expected a ref string but received ${describeValue(ref)}` };
  if (ref.startsWith(MEDIA_REF_PREFIX)) {
    const id = ref.slice(MEDIA_REF_PREFIX.length);
    if (id.length === 0 || id.length > MAX_MEDIA_ID_LENGTH || !MEDIA_ID.test(id)) {
      return {
        ok: false,
        reason: `expected "media/<id>" with an id of 1 to ${MAX_MEDIA_ID_LENGTH} characters from A-Z a-z 0-9 _ - (no "/", ".", spaces or control characters)`,
      };
    }
    return { ok: true, ref: { scheme: 'media', id } };
  }
  if (ref.startsWith(MACHINE_FILE_REF_PREFIX)) {
    const path = ref.slice(MACHINE_FILE_REF_PREFIX.length);
    if (path.length === 0 || path.length > MAX_MACHINE_PATH_LENGTH) {
      return {
        ok: false,
        reason: `expected "machine-file://<absolute path>" with a path of 1 to ${MAX_MACHINE_PATH_LENGTH} characters`,
      };
    }
    if (!path.startsWith('/') && !WINDOWS_ABSOLUTE.test(path)) {
      return {
        ok: false,
        reason: 'expected an absolute path after "machine-file://" (e.g. machine-file:///home/me/a.png)',
      };
    }
    if (hasControlCharacters(path)) {
      return { ok: false, reason: 'expected a machine-file path without control characters' };
    }
    if (path.split(/[\\/]/).some((segment) => segment === '.' || segment === '..')) {
      return { ok: false, reason: 'expected a machine-file path without "." or ".." segments' };
    }
    return { ok: true, ref: { scheme: 'machine-file', path } };
  }
  return {
    ok: false,
    reason: 'expected a ref of the form "media/<id>" or "machine-file://<absolute path>"',
  };
}

/**
 * Parses and validates a ref.
 *
 * @throws {StorageError} `ERR_INVALID_REF` when `ref` is not a valid `media/<id>` or
 *   `machine-file://<path>` ref; the message says what was wrong (it never echoes the ref).
 * @example
 * ```ts
 * parseRef('media/k2x9q0c1v3b5n7m8a1s2d3f4'); // { scheme: 'media', id: 'k2x9q0c1v3b5n7m8a1s2d3f4' }
 * parseRef('machine-file:///tmp/a.png');      // { scheme: 'machine-file', path: '/tmp/a.png' }
 * ```
 */
export function parseRef(ref: string): ParsedRef {
  const checked = checkRef(ref);
  if (!checked.ok) throw new StorageError(`invalid ref: ${checked.reason}`, { code: 'ERR_INVALID_REF' });
  return checked.ref;
}

/** True when `ref` is a valid `media/<id>` ref (a server upload). Never throws. */
export function isMediaRef(ref: unknown): ref is string {
  const checked = checkRef(ref);
  return checked.ok && checked.ref.scheme === 'media';
}

/** True when `ref` is a valid ref of either scheme. Never throws. */
export function isRef(ref: unknown): ref is string {
  return checkRef(ref).ok;
}

/**
 * Creates a fresh server-upload ref, `media/<cuid2>`, safe to use as a storage key.
 *
 * @example
 * ```ts
 * const ref = createMediaRef(); // 'media/tz4a98xxat96iws9zmbrgj3a'
 * ```
 */
export function createMediaRef(): string {
  return `${MEDIA_REF_PREFIX}${createMessageId()}`;
}

/** The zod schema of a `ref` field: either scheme, validated as {@link parseRef} does. */
export const RefSchema = z.string().superRefine((value, context) => {
  const checked = checkRef(value);
  if (!checked.ok) context.addIssue({ code: 'custom', message: checked.reason });
});
