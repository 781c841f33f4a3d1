/**
 * The mapper test kit: a stepping clock, sequential ids, media handlers that record (or fail) uploads,
 * and {@link mapValid}, which maps events and fails unless the stream has zero violations by our own
 * validator (strict mode, every turn opened by `turn-start`). Every mapper test maps through it.
 */

import { StorageError } from '../../src/errors.js';
import {
  type AgentMapperOptions,
  type MappedOutput,
  type MapperProvider,
  type MediaHandler,
  mapAgentOutput,
  type SessionMessage,
  validateStream,
} from '../../src/index.js';
import type { MapperClock, MediaDescription, MediaUpload } from '../../src/mappers.js';

/** A clock that starts at `start` and steps `step` ms on every read. */
export function steppingClock(start = 1_700_000_000_000, step = 1): MapperClock {
  let now = start - step;
  return {
    now: () => {
      now += step;
      return now;
    },
  };
}

/** Ids `id-1`, `id-2`, … (deterministic streams for exact assertions). */
export function sequentialIds(prefix = 'id'): () => string {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A valid ThumbHash (base64) for fake photo descriptions. */
export const FAKE_THUMBHASH = '3OcRJYB4d3h/iIeHeEh3eIhw+j2w';

/**
 * A media handler that records every upload and describes images as photos, the rest as files; refs
 * are `media/upload-N` in upload order, or what `refOf` makes of the upload.
 */
export function recordingMediaHandler(refOf?: (upload: MediaUpload) => string): {
  handler: MediaHandler;
  uploads: MediaUpload[];
} {
  const uploads: MediaUpload[] = [];
  const handler: MediaHandler = async (upload) => {
    uploads.push(upload);
    const ref = refOf?.(upload) ?? `media/upload-${uploads.length}`;
    const description: MediaDescription = upload.mimeType?.startsWith('image/')
      ? { type: 'photo', ref, thumbhash: FAKE_THUMBHASH, width: 1, height: 1 }
      : {
          type: 'file',
          ref,
          name: upload.name,
          size: upload.bytes.length,
          mimeType: upload.mimeType ?? 'application/octet-stream',
        };
    return description;
  };
  return { handler, uploads };
}

/** A media handler whose every upload fails with `ERR_UPLOAD_FAILED`. */
export const failingMediaHandler: MediaHandler = async () => {
  throw new StorageError('the store refused the upload', { code: 'ERR_UPLOAD_FAILED' });
};

/** Throws unless `messages` is a valid, complete stream (strict schemas, turns opened by turn-start). */
export function expectValidStream(messages: readonly SessionMessage[]): void {
  const violations = validateStream(messages, { mode: 'strict', requireTurnStart: true });
  if (violations.length > 0) {
    const shown = violations.slice(0, 5).map((v) => `index ${v.index}: ${v.code}: ${v.message}`);
    throw new Error(`the mapped stream has ${violations.length} violations:\n${shown.join('\n')}`);
  }
}

/** Maps `events` with `provider` (the writer's `verify` on) and checks the stream is valid. */
export async function mapValid(
  provider: string | MapperProvider,
  events: Iterable<unknown> | AsyncIterable<unknown>,
  options: AgentMapperOptions = {},
): Promise<MappedOutput> {
  const output = await mapAgentOutput(provider, events, { verify: true, ...options });
  expectValidStream(output.messages);
  return output;
}
