/**
 * `serveMedia`: streaming playback through a loopback HTTP endpoint that decrypts only what is asked for.
 *
 * A player (mpv, VLC, a browser) gets `http://127.0.0.1:<port>/<128-bit random token>/<name>.<ext>` and
 * may seek anywhere: each `Range` request is answered by reading and authenticating only the chunks it
 * covers ({@link openBlobRandomAccess} over the store). Opening checks the commitment and the final chunk,
 * so the size is authentic before the URL is returned; a chunk that fails its tag ends the response
 * (the connection is destroyed mid-body), so no unverified byte is ever sent. The endpoint answers only on
 * 127.0.0.1, only on its token path, and only to a loopback `Host` on its port (`127.0.0.1:<port>`,
 * `localhost:<port>`, `[::1]:<port>`: the check `happy-media serve` shares), so a DNS rebinding page cannot
 * reach it by another name.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BlobReader, bufferRangeSource } from '../../core/blob/index.js';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { StorageError } from '../../core/errors.js';
import { decryptV1Blob } from '../../core/happy/v1-blob.js';
import { mediaFileName } from '../../core/playback/media-names.js';
import {
  assertStoreAndKey,
  type MediaInput,
  requestForSource,
  toMediaRequest,
} from '../../core/playback/media-request.js';
import type { ReadableBlobStore } from '../../core/playback/resumable-download.js';
import { headWithRetries, readStoreRange } from '../../core/playback/store-reads.js';
import { expectedPlaintextSize, openMediaRandomAccess } from '../../core/playback/stored-media.js';
import { parseRangeHeader } from '../../core/transport/range-header.js';
import { type RetryPolicy, retryPolicy } from '../../core/transport/retry.js';
import { isAllowedHost } from '../http/allowed-host.js';
import { detectContainerType } from '../media/mime.js';

/**
 * How much plaintext the endpoint sniffs when the message names no MIME type: files up to
 * {@link SNIFF_WHOLE_BYTES} whole (file-type may need a TIFF's trailing IFD or a zip's entries), else the
 * first {@link SNIFF_HEAD_BYTES}.
 */
const SNIFF_WHOLE_BYTES = 4 * 1024 * 1024;
/** See {@link SNIFF_WHOLE_BYTES}. */
const SNIFF_HEAD_BYTES = 64 * 1024;

/** Options of {@link serveMedia}. */
export interface ServeMediaOptions extends RetryPolicy {
  /** Where the encrypted blob is (any `BlobStore`; only `head` and `get` are used). */
  store: ReadableBlobStore;
  /** The 32-byte blob key. */
  blobKey: Uint8Array;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
}

/** A running loopback endpoint. */
export interface MediaEndpoint {
  /** The URL to hand to a player; valid until {@link MediaEndpoint.close}. */
  url: string;
  /** MIME type sent as `Content-Type`. */
  mimeType: string;
  /** Plaintext size in bytes (authenticated). */
  size: number;
  /** Stops the server and drops open connections. Idempotent. */
  close(): Promise<void>;
}

async function openReader(
  request: ReturnType<typeof toMediaRequest>,
  options: ServeMediaOptions,
): Promise<BlobReader> {
  if (request.format === 'v1') {
    const reads = retryPolicy(options);
    const size = await headWithRetries(options.store, request.ref, reads);
    // The one v1 size check (Happy's cap, the overhead, the message's size), shared with downloadMedia.
    expectedPlaintextSize(request, size);
    const plain = decryptV1Blob(
      await readStoreRange(options.store, request.ref, 0, size, reads),
      options.blobKey,
    );
    const source = bufferRangeSource(plain);
    return {
      plaintextSize: plain.length,
      read: (offset, length, signal) => source.read(offset, length, signal),
      async readInto(offset, out, signal) {
        const plainRange = await source.read(offset, Math.min(out.length, plain.length - offset), signal);
        out.set(plainRange);
        return plainRange.length;
      },
      // The whole v1 blob is already verified and in memory: one piece.
      async *stream(offset, length, signal) {
        if (length > 0) yield await source.read(offset, length, signal);
      },
    };
  }
  // Bound to the ref the message names (media in parts through its manifest): a blob stored under
  // another ref fails at open.
  return openMediaRandomAccess(options.store, request.ref, options.blobKey, {
    ...retryPolicy(options),
    ...(request.size === undefined ? {} : { size: request.size }),
  });
}

/**
 * Answers a player's GET or HEAD of the media with the range it asks for (the whole media when it asks
 * none we can read), streaming verified pieces as the covering chunks arrive: a bad first chunk is a
 * clean 502, a later failure cuts the connection.
 */
async function answerRange(
  req: IncomingMessage,
  res: ServerResponse,
  reader: BlobReader,
  mimeType: string,
): Promise<void> {
  const size = reader.plaintextSize;
  // Policy: a Range header we cannot read is ignored (200, whole file), as RFC 9110 allows; players vary.
  const decision = parseRangeHeader(req.headers.range, size);
  if (decision.kind === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${size}`, 'Content-Length': '0' }).end();
    return;
  }
  const start = decision.kind === 'partial' ? decision.start : 0;
  const end = decision.kind === 'partial' ? decision.end : size - 1;
  const headers: Record<string, string> = {
    'Content-Type': mimeType,
    'Accept-Ranges': 'bytes',
    'Content-Length': String(end - start + 1),
  };
  if (decision.kind === 'partial') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  // Verified pieces as the covering chunks arrive from the store (a seek's first bytes go out after its
  // first chunk, not after the whole range). The first piece is decrypted before the status line, so a
  // bad chunk at the start is a clean 502.
  const pieces = reader.stream(start, end - start + 1, abort.signal);
  try {
    let step: IteratorResult<Uint8Array> | undefined;
    if (req.method === 'GET' && end >= start) {
      try {
        step = await pieces.next();
      } catch {
        res.writeHead(502, { 'Content-Length': '0' }).end();
        return;
      }
    }
    res.writeHead(decision.kind === 'partial' ? 206 : 200, headers);
    if (req.method === 'HEAD' || step === undefined) {
      res.end();
      return;
    }
    // A failure here (tag, store, abort) destroys the connection: the player sees a cut, never bad bytes.
    for (; !step.done; step = await pieces.next()) {
      if (!res.write(step.value)) await once(res, 'drain', { signal: abort.signal });
    }
    res.end();
  } finally {
    // However the response ended (a player that seeks away closes it), the store read is cancelled.
    await pieces.return();
  }
}

/**
 * Serves one message's media on a loopback URL for streaming playback with seeking.
 *
 * @throws {StorageError} `ERR_NOT_FOUND` / `ERR_DOWNLOAD_FAILED` when the blob cannot be read;
 *   `ERR_STORAGE` when the port cannot be bound.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the header or final chunk does not verify, or
 *   the size differs from the message's.
 * @throws {InvalidArgumentError} / {SchemaError} for bad arguments.
 * @example
 * ```ts
 * const endpoint = await serveMedia(videoMessage, { store, blobKey });
 * spawn('mpv', [endpoint.url]);
 * // ...
 * await endpoint.close();
 * ```
 */
export async function serveMedia(message: MediaInput, options: ServeMediaOptions): Promise<MediaEndpoint> {
  assertStoreAndKey(options);
  if (options.port !== undefined) assertNonNegativeInteger(options.port, 'port', 65535);
  const request = requestForSource(toMediaRequest(message), options.store, false);

  // Media of another size than the message states is refused by the open (both formats).
  const reader = await openReader(request, options);
  const size = reader.plaintextSize;
  const sniffed = request.mimeType
    ? undefined
    : await detectContainerType(await reader.read(0, size <= SNIFF_WHOLE_BYTES ? size : SNIFF_HEAD_BYTES));
  const mimeType = request.mimeType ?? sniffed ?? 'application/octet-stream';
  const token = randomBytes(16).toString('base64url');
  const path = `/${token}/${encodeURIComponent(mediaFileName(request.name, mimeType).name)}`;
  const expected = Buffer.from(path);

  const server = createServer((req, res) => {
    void answer(req, res).catch(() => res.destroy());
  });
  let port = 0;

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const target = Buffer.from((req.url ?? '').split('?')[0]!);
    const matches = target.length === expected.length && timingSafeEqual(target, expected);
    if (!isAllowedHost(req.headers.host, { port }) || !matches) {
      res.writeHead(404, { 'Content-Length': '0' }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' }).end();
      return;
    }
    await answerRange(req, res, reader, mimeType);
  }

  server.listen(options.port ?? 0, '127.0.0.1');
  try {
    await once(server, 'listening');
  } catch (cause) {
    throw new StorageError(`could not listen on 127.0.0.1:${options.port ?? 0}`, { cause });
  }
  port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    mimeType,
    size,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
