/**
 * Reading an HTTP answer's body with a size limit suited to what it holds: a server that sends more than
 * it should (an endless `200`, an endless error page) costs at most the limit, never the memory of the
 * process. The deadline and the caller's signal are the request's own: a body is read on the signal its
 * `fetch` was given, so aborting that signal ends the read.
 *
 * @module
 */
import { joinBytes } from '../bytes.js';
import { LimitError } from '../errors.js';

/** The body's bytes, at most `maxBytes` of them; `truncated` says more were there (then left unread). */
async function readAtMost(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const body = response.body;
  if (body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return { bytes: joinBytes(parts), truncated: false };
      const room = maxBytes - length;
      if (next.value.length > room) {
        parts.push(next.value.subarray(0, room));
        return { bytes: joinBytes(parts), truncated: true };
      }
      parts.push(next.value);
      length += next.value.length;
    }
  } finally {
    // Whatever is left is not read: the connection is let go.
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * The body as UTF-8 text, refused past `maxBytes` (a `Content-Length` over it is refused before reading).
 *
 * @param what - names the answer in the error, e.g. "list-sessions failed: the answer".
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` (never retried: the same server sends the same answer).
 * @throws what reading the body throws (a cut connection, an abort).
 * @example
 * ```ts
 * const page = JSON.parse(await readBodyText(response, 16 * 1024 * 1024, 'list-sessions failed: the answer'));
 * ```
 */
export async function readBodyText(response: Response, maxBytes: number, what: string): Promise<string> {
  const tooLarge = () =>
    new LimitError(`${what} is larger than the ${maxBytes} bytes such an answer may have; it was not read`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isSafeInteger(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const { bytes, truncated } = await readAtMost(response, maxBytes);
  if (truncated) throw tooLarge();
  return new TextDecoder().decode(bytes);
}

/**
 * The first `maxBytes` of the body as UTF-8 text (at most that much is read, the rest let go), or `''`
 * when the body cannot be read: for what an error page says, which is never worth more.
 *
 * @example
 * ```ts
 * const detail = await readBodyPrefix(response, 2000);
 * ```
 */
export async function readBodyPrefix(response: Response, maxBytes: number): Promise<string> {
  try {
    return new TextDecoder().decode((await readAtMost(response, maxBytes)).bytes);
  } catch {
    return '';
  }
}
