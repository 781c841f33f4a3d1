/**
 * The attachment message Happy's app reads (v1): happy-wire's session envelope with a `file` event
 * (`packages/happy-wire/src/sessionProtocol.ts`, `sessionFileEventSchema`), whose blob is a v1 blob
 * (whole-file secretbox under the session blob key) and whose `ref` is the server's own
 * `sessions/<sid>/attachments/<uuid>.enc`:
 * ```
 * { id, time, role, turn?, ev: { t: 'file', ref, name, size, mimeType?, image?: { width, height, thumbhash } } }
 * ```
 * `size` is the plaintext size. The app wraps it as `{ role: 'session', content: { type: 'session', data } }`
 * before sealing ({@link wrapForApp}). `send --format v1` emits this instead of a v2 message.
 *
 * @module
 */
import * as z from 'zod';
import { createMessageId } from '../protocol/ids.js';
import { assertWith } from '../protocol/schema-check.js';

/** happy-wire's `file` event, as we emit it (strict: nothing the app does not know). */
export const HappyFileEventSchema = z.strictObject({
  id: z.string().min(1),
  time: z.number().int().nonnegative(),
  role: z.enum(['user', 'agent']),
  turn: z.string().min(1).optional(),
  ev: z.strictObject({
    t: z.literal('file'),
    ref: z.string().min(1),
    name: z.string().min(1),
    size: z.number().int().nonnegative(),
    mimeType: z.string().min(1).optional(),
    image: z
      .strictObject({
        width: z.number().int().positive(),
        height: z.number().int().positive(),
        thumbhash: z.string().min(1),
      })
      .optional(),
  }),
});

/** A happy-wire session envelope carrying a `file` event (Happy's v1 attachment message). */
export type HappyFileEvent = z.infer<typeof HappyFileEventSchema>;

/** Fields of {@link happyFileEvent}. */
export interface HappyFileEventFields {
  role: 'user' | 'agent';
  /** Turn id (agent messages). */
  turn?: string;
  /** The server's ref (`sessions/<sid>/attachments/<uuid>.enc`) or, off Happy's server, `media/<id>`. */
  ref: string;
  /** Display name. */
  name: string;
  /** Plaintext size in bytes. */
  size: number;
  mimeType?: string;
  /** For photos and videos: what the app shows before the download. */
  image?: { width: number; height: number; thumbhash: string };
}

/**
 * Builds and validates a happy-wire `file` event envelope.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid.
 * @example
 * ```ts
 * const event = happyFileEvent({ role: 'user', ref: store.serverRef(ref), name: 'a.jpg', size: 1234 });
 * sealRaw(wrapForApp(event), dataKey(sessionKey));
 * ```
 */
export function happyFileEvent(
  fields: HappyFileEventFields,
  options: { id?: string; time?: number } = {},
): HappyFileEvent {
  const { role, turn, ...ev } = fields;
  return assertWith(
    HappyFileEventSchema,
    {
      id: options.id ?? createMessageId(),
      time: options.time ?? Date.now(),
      role,
      ...(turn === undefined ? {} : { turn }),
      ev: { t: 'file', ...ev },
    },
    'Happy file event',
  );
}

/**
 * Reads a happy-wire `file` event (tolerant of fields a newer writer added), or returns `undefined`
 * when `value` is not one.
 */
export function parseHappyFileEvent(value: unknown): HappyFileEvent | undefined {
  const result = HappyFileEventSchema.loose()
    .extend({ ev: HappyFileEventSchema.shape.ev.loose() })
    .safeParse(value);
  return result.success ? (result.data as HappyFileEvent) : undefined;
}
