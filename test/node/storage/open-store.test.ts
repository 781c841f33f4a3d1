import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpBlobStore, LocalBlobStore, openStore, S3BlobStore } from '../../../src/node/storage/index.js';

describe('openStore', () => {
  it('maps each spec to its store', () => {
    const local = openStore('./some/dir');
    expect(local).toBeInstanceOf(LocalBlobStore);
    expect((local as LocalBlobStore).dir).toBe(resolve('some/dir'));
    expect((openStore('file:///srv/blobs') as LocalBlobStore).dir).toBe('/srv/blobs');
    const http = openStore('http://127.0.0.1:8787/', { token: 't' });
    expect(http).toBeInstanceOf(HttpBlobStore);
    expect((http as HttpBlobStore).urlOf('media/abc')).toBe('http://127.0.0.1:8787/v1/blobs/media/abc');
    const s3 = openStore('s3://my-bucket/team/happy') as S3BlobStore;
    expect(s3).toBeInstanceOf(S3BlobStore);
    expect(s3.bucket).toBe('my-bucket');
    expect(s3.keyOf('media/abc')).toBe('team/happy/media/abc');
    expect((openStore('s3://my-bucket') as S3BlobStore).keyOf('media/abc')).toBe('media/abc');
  });

  it('refuses empty specs, bucketless s3 specs and unknown schemes', () => {
    for (const spec of ['', '  ', 's3://', 's3:///prefix', 'ftp://host/x', 'gs://bucket']) {
      expect(() => openStore(spec), spec).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    }
  });
});
