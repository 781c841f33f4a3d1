/**
 * What Happy's server says when it refuses a request: its JSON error body (`{"error": "...", "message":
 * "..."}`), read into a short detail for the error message, the same for its API (HappyApi) and its
 * attachment routes (HappyServerStore).
 *
 * @module
 */

/**
 * The `error` and `message` strings of a JSON error body, joined and cut to 300 characters; `''` for a body
 * that is not such JSON (only its first 2000 characters are parsed: an error body is small).
 *
 * @example
 * ```ts
 * const detail = await errorDetail(response); // 'Forbidden: token expired'
 * ```
 */
export async function errorDetail(response: Response): Promise<string> {
  try {
    const body = JSON.parse((await response.text()).slice(0, 2000)) as { error?: unknown; message?: unknown };
    const parts = [body.error, body.message].filter((v): v is string => typeof v === 'string');
    return parts.join(': ').slice(0, 300);
  } catch {
    return '';
  }
}
