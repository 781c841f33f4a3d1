/**
 * Field schemas shared by every Session Protocol v2 message: identifiers, times, sizes, MIME types,
 * thumbhashes and file names. Each one bounds what it accepts, because every value here may come from
 * the wire (a decrypted message written by another device) and may be hostile.
 *
 * @module
 */
import * as z from 'zod';

/** Longest identifier (`id`, `turn`, `callId`, `parentId`, `agentId`, option ids) we accept, in characters. */
export const MAX_ID_LENGTH = 256;
/** Longest file `name` we accept, in characters (the common file-system limit for one path segment). */
export const MAX_FILE_NAME_LENGTH = 255;
/** Longest base64 thumbhash we accept, in characters (a ThumbHash is at most about 25 bytes). */
export const MAX_THUMBHASH_LENGTH = 128;
/** Longest MIME type we accept, in characters (RFC 6838: 127 for each of type and subtype). */
export const MAX_MIME_TYPE_LENGTH = 255;

// C0 controls, DEL and C1 controls: never meaningful in an identifier or a name, and dangerous in logs.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * An identifier: 1 to {@link MAX_ID_LENGTH} characters, no control characters. We create cuid2 ids
 * (`createMessageId`), but any such string parses, so the design's short ids (`a1`, `msg_abc123`,
 * `call_001`) and provider ids (`toolu_01...`) are accepted.
 */
export const IdSchema = z
  .string()
  .min(1, { error: 'expected a non-empty identifier' })
  .max(MAX_ID_LENGTH, { error: `expected an identifier of at most ${MAX_ID_LENGTH} characters` })
  .refine((value) => !CONTROL_CHARACTERS.test(value), {
    error: 'expected an identifier without control characters',
  });

/**
 * True when `value` is what {@link IdSchema} accepts (a string of 1 to {@link MAX_ID_LENGTH} characters
 * without control characters), checked without zod: the builders' quick check and the mappers' writer
 * test every id they handle.
 */
export function isId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_ID_LENGTH &&
    !hasControlCharacters(value)
  );
}

/** A non-negative safe integer: sizes in bytes, pixel dimensions, durations in milliseconds. */
export const NonNegativeIntegerSchema = z
  .number({ error: 'expected a non-negative integer' })
  .int({ error: 'expected an integer, not a fraction' })
  .nonnegative({ error: 'expected a non-negative integer' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'expected a safe integer' });

/** Unix time in whole milliseconds. */
export const TimeSchema = NonNegativeIntegerSchema;

/** Tool input arguments: a JSON object (not an array, not null); values are free-form. */
export const ArgsSchema = z.record(z.string(), z.unknown());

// Canonical standard base64 with `=` padding: the alphabet Happy uses everywhere on the wire.
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A ThumbHash as standard padded base64 (not base64url), non-empty and at most
 * {@link MAX_THUMBHASH_LENGTH} characters. The smallest ThumbHash is 5 bytes (its header).
 */
export const ThumbhashSchema = z
  .string()
  .min(8, { error: 'expected a base64 ThumbHash of at least 5 bytes' })
  .max(MAX_THUMBHASH_LENGTH, {
    error: `expected a base64 ThumbHash of at most ${MAX_THUMBHASH_LENGTH} characters`,
  })
  .regex(STANDARD_BASE64, {
    error: 'expected standard padded base64 (A-Z a-z 0-9 + /, "=" padding) for the ThumbHash',
  });

// RFC 6838 restricted-name for both halves; parameters (`; charset=...`) are not part of the field.
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** A MIME type `type/subtype` (RFC 6838 characters, no parameters), e.g. `video/mp4`. */
export const MimeTypeSchema = z
  .string()
  .max(MAX_MIME_TYPE_LENGTH)
  .regex(MIME_TYPE, { error: 'expected a MIME type of the form type/subtype, e.g. "video/mp4"' });

/**
 * A display file name: a single path segment (no `/` or `\`), not `.` or `..`, no control characters,
 * 1 to {@link MAX_FILE_NAME_LENGTH} characters. Receivers may use it to name a temp file, so it must
 * never be able to point anywhere else.
 */
export const FileNameSchema = z
  .string()
  .min(1, { error: 'expected a non-empty file name' })
  .max(MAX_FILE_NAME_LENGTH, {
    error: `expected a file name of at most ${MAX_FILE_NAME_LENGTH} characters`,
  })
  .refine((value) => !/[/\\]/.test(value), {
    error: 'expected a file name without "/" or "\\" (a name, not a path)',
  })
  .refine((value) => value !== '.' && value !== '..', {
    error: 'expected a file name other than "." or ".."',
  })
  .refine((value) => !CONTROL_CHARACTERS.test(value), {
    error: 'expected a file name without control characters',
  });

/** How a turn ended. */
export const TurnStatusSchema = z.enum(['completed', 'failed', 'cancelled']);
/** How a turn ended: `completed`, `failed` or `cancelled`. */
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/** The four permission kinds (from ACP). */
export const PermissionOptionKindSchema = z.enum([
  'allow-once',
  'allow-always',
  'reject-once',
  'reject-always',
]);
/** `allow-once | allow-always | reject-once | reject-always`. */
export type PermissionOptionKind = z.infer<typeof PermissionOptionKindSchema>;

/** True when a control character (C0, DEL, C1) occurs in `value`. */
export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}
