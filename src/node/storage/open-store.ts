/**
 * One string names a store, as the CLI's `--store` does: a directory, an `http(s)://` media server, an
 * `s3://bucket/prefix` or Happy's own server as `happy+http(s)://host`.
 *
 * @module
 */
import { InvalidArgumentError } from '../../core/errors.js';
import { HappyServerStore } from '../../core/happy/attachment-store.js';
import type { BlobStore } from '../../core/storage/blob-store.js';
import { HttpBlobStore } from './http-store.js';
import { LocalBlobStore } from './local-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-store.js';

/** Options of {@link openStore}, by kind of store. */
export interface OpenStoreOptions {
  /** Bearer token for an `http(s)://` or `happy+http(s)://` store; else `HAPPY_MEDIA_TOKEN`. */
  token?: string;
  /** Session of a `happy+http(s)://` store; else `HAPPY_MEDIA_SESSION`. */
  sessionId?: string;
  /** A `happy+http://` store on a host that is not this machine (`HappyServerStoreOptions.insecureHttp`). */
  insecureHttp?: boolean;
  /** Extra S3 options for an `s3://` store (endpoint, region, credentials, part size). */
  s3?: Omit<S3BlobStoreOptions, 'bucket' | 'prefix'>;
}

/**
 * Opens the store a spec names:
 * - `http://host:port` or `https://...` → {@link HttpBlobStore};
 * - `s3://bucket` or `s3://bucket/prefix` → {@link S3BlobStore} (endpoint, region and credentials from
 *   `options.s3` or the environment);
 * - `happy+http://host:port` or `happy+https://host` → {@link HappyServerStore} for `options.sessionId`
 *   (else `HAPPY_MEDIA_SESSION`) with `options.token` (else `HAPPY_MEDIA_TOKEN`);
 * - anything else is a directory → {@link LocalBlobStore}.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an empty spec, an `s3://` spec without a
 *   bucket, a `happy+` spec without a token or session, or another `scheme://` we do not know.
 * @example
 * ```ts
 * const store = openStore(process.env.HAPPY_MEDIA_STORE ?? './blobs');
 * const s3 = openStore('s3://happy-media/prod', { s3: { endpoint: 'http://127.0.0.1:9000' } });
 * ```
 */
export function openStore(spec: string, options: OpenStoreOptions = {}): BlobStore {
  if (typeof spec !== 'string' || spec.trim() === '') {
    throw new InvalidArgumentError(
      'expected a store for `spec` (a directory, http(s)://host:port or s3://bucket/prefix) but received nothing',
    );
  }
  if (/^happy\+https?:\/\//i.test(spec)) {
    const token = options.token ?? (process.env.HAPPY_MEDIA_TOKEN || undefined);
    const sessionId = options.sessionId ?? (process.env.HAPPY_MEDIA_SESSION || undefined);
    if (!token) {
      throw new InvalidArgumentError(
        "expected the account's bearer token for Happy's server in `options.token` or HAPPY_MEDIA_TOKEN but received none",
      );
    }
    if (!sessionId) {
      throw new InvalidArgumentError(
        "expected the session for Happy's server in `options.sessionId` or HAPPY_MEDIA_SESSION but received none",
      );
    }
    return new HappyServerStore({
      url: spec.slice('happy+'.length),
      token,
      sessionId,
      ...(options.insecureHttp === true ? { insecureHttp: true } : {}),
    });
  }
  if (/^https?:\/\//i.test(spec)) {
    return new HttpBlobStore(spec, { token: options.token ?? (process.env.HAPPY_MEDIA_TOKEN || undefined) });
  }
  if (/^s3:\/\//i.test(spec)) {
    const rest = spec.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const prefix = slash === -1 ? '' : rest.slice(slash + 1);
    if (!bucket)
      throw new InvalidArgumentError(
        'expected s3://bucket or s3://bucket/prefix for `spec` but the bucket is missing',
      );
    return new S3BlobStore({ ...options.s3, bucket, prefix });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec);
  if (scheme && scheme[1]?.toLowerCase() !== 'file') {
    throw new InvalidArgumentError(
      `expected a directory, http(s)://, s3:// or happy+http(s):// store for \`spec\` but received a ${scheme[1]}:// URL`,
    );
  }
  return new LocalBlobStore(spec.startsWith('file://') ? new URL(spec).pathname : spec);
}
