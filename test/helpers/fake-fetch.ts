/**
 * A `fetch` that serves byte arrays over HTTP semantics (Range → 206 + Content-Range), with the
 * misbehaviours real servers show: ignoring Range (200 + whole body), answering the wrong range, dropping
 * the body after N bytes. Records every request. Universal (no node:, no global Response or Headers: the
 * responses are duck-typed), so the Hermes run uses it too.
 */
import type { FetchFunction } from '../../src/core/transport/fetch-range.js';

/** The part of a `Response` that fetchRange reads. */
interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | null;
}

export interface FakeFetchOptions {
  /** Answer 200 with the whole body whatever the Range (a server that ignores Range). */
  ignoreRange?: boolean;
  /** Shift the answered range by this many bytes (a broken proxy). */
  shiftRange?: number;
  /** Each request takes the next entry: the body errors after this many bytes (undefined: no drop). */
  dropAfter?: (number | undefined)[];
  /** Bytes per body piece (default 8192). */
  pieceBytes?: number;
}

export interface FakeFetch {
  fetch: FetchFunction;
  requests: { url: string; range?: string }[];
}

function headers(map: Record<string, string>): ResponseLike['headers'] {
  return { get: (name) => map[name.toLowerCase()] ?? null };
}

/** Serves `blobs[url]`; unknown URLs get 404. */
export function fakeFetch(blobs: Record<string, Uint8Array>, options: FakeFetchOptions = {}): FakeFetch {
  const requests: FakeFetch['requests'] = [];
  const drops = [...(options.dropAfter ?? [])];
  const pieceBytes = options.pieceBytes ?? 8192;
  const fetch = async (input: unknown, init?: { headers?: unknown }): Promise<ResponseLike> => {
    const url = String(input);
    const range = (init?.headers as Record<string, string> | undefined)?.range;
    requests.push({ url, ...(range === undefined ? {} : { range }) });
    const blob = blobs[url];
    const drop = drops.shift();
    const respond = (status: number, map: Record<string, string>, body: Uint8Array): ResponseLike => {
      const limit = drop === undefined ? body.length : Math.min(drop, body.length);
      let at = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at < limit) {
            const end = Math.min(limit, at + pieceBytes);
            controller.enqueue(body.slice(at, end));
            at = end;
          } else if (limit < body.length) controller.error(new Error('connection reset (fake)'));
          else controller.close();
        },
      });
      return {
        status,
        headers: headers({ ...map, 'content-length': String(body.length) }),
        body: stream,
      };
    };
    if (blob === undefined) return respond(404, {}, new Uint8Array(0));
    const match = range === undefined ? null : /^bytes=(\d+)-(\d+)$/.exec(range);
    if (match === null || options.ignoreRange) return respond(200, {}, blob);
    const start = Number(match[1]);
    if (start >= blob.length)
      return respond(416, { 'content-range': `bytes */${blob.length}` }, new Uint8Array(0));
    const end = Math.min(Number(match[2]), blob.length - 1);
    const shift = options.shiftRange ?? 0;
    return respond(
      206,
      { 'content-range': `bytes ${start + shift}-${end + shift}/${blob.length}` },
      blob.slice(start + shift, end + shift + 1),
    );
  };
  return { fetch: fetch as unknown as FetchFunction, requests };
}
