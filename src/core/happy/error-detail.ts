/**
 * What Happy's server says when it refuses a request: its JSON error body (`{"error": "...", "message":
 * "..."}`), read into a short detail for the error message, the same for its API and its attachment
 * routes (happy-api.ts).
 *
 * @module
 */
import { readBodyPrefix } from '../transport/bounded-body.js';

/** Bytes of an error body read at most: Happy's are a few dozen, and an endless one costs no more. */
export const ERROR_BODY_MAX_BYTES = 2000;

/**
 * The `error` and `message` strings of a JSON error body, joined and cut to 300 characters; `''` for a body
 * that is not such JSON (only its first {@link ERROR_BODY_MAX_BYTES} bytes are read: an error body is small).
 *
 * @example
 * ```ts
 * const detail = await errorDetail(response); // 'Forbidden: token expired'
 * ```
 */
export async function errorDetail(response: Response): Promise<string> {
  try {
    const text = await readBodyPrefix(response, ERROR_BODY_MAX_BYTES);
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const parts = [body.error, body.message].filter((v): v is string => typeof v === 'string');
    return parts.join(': ').slice(0, 300);
  } catch {
    return '';
  }
}
