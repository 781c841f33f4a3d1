/**
 * The S3 store against a real S3-compatible server (scripts/s3-server.sh start; source .s3/env).
 * Skipped when HAPPY_MEDIA_S3_ENDPOINT is unset, so a plain `npm test` passes without a server.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import { openStore, S3BlobStore } from '../../../src/node/storage/index.js';
import { S3_MIN_PART_BYTES } from '../../../src/node/storage/s3-store.js';
import { collect, describeStoreContract, stallingStream, streamOf } from './store-contract.js';

const hasS3 = Boolean(process.env.HAPPY_MEDIA_S3_ENDPOINT);
const prefix = `test-${Date.now().toString(36)}/`;

describe.skipIf(!hasS3)('S3BlobStore against a real server', () => {
  describeStoreContract('S3BlobStore', () => new S3BlobStore({ prefix }));

  it('uploads multipart above the threshold and reads ranges across part boundaries', async () => {
    const store = new S3BlobStore({
      prefix,
      multipartThreshold: S3_MIN_PART_BYTES,
      partSize: S3_MIN_PART_BYTES,
    });
    const blob = new Uint8Array(randomBytes(2 * S3_MIN_PART_BYTES + 12345));
    const ref = createMediaRef();
    await store.put(ref, streamOf(blob, 65536), blob.length);
    expect(await store.head(ref)).toEqual({ size: blob.length });
    const across = await collect(await store.get(ref, { offset: S3_MIN_PART_BYTES - 10, length: 20 }));
    expect(
      Buffer.from(across).equals(Buffer.from(blob.subarray(S3_MIN_PART_BYTES - 10, S3_MIN_PART_BYTES + 10))),
    ).toBe(true);
    const whole = await collect(await store.get(ref));
    expect(Buffer.from(whole).equals(Buffer.from(blob))).toBe(true);
    await store.delete(ref);
  });

  it('aborts a multipart upload on a short body or abort, leaving nothing', async () => {
    const store = new S3BlobStore({
      prefix,
      multipartThreshold: S3_MIN_PART_BYTES,
      partSize: S3_MIN_PART_BYTES,
    });
    const short = createMediaRef();
    await expect(
      store.put(short, streamOf(new Uint8Array(S3_MIN_PART_BYTES + 100)), S3_MIN_PART_BYTES + 101),
    ).rejects.toMatchObject({
      code: 'ERR_UPLOAD_FAILED',
    });
    await expect(store.head(short)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    const aborted = createMediaRef();
    const controller = new AbortController();
    const put = store.put(
      aborted,
      stallingStream(new Uint8Array(S3_MIN_PART_BYTES + 10)),
      3 * S3_MIN_PART_BYTES,
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 300);
    await expect(put).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await expect(store.head(aborted)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    // No multipart upload may be left open (its parts would stay stored and billed).
    const { S3Client, ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      endpoint: process.env.HAPPY_MEDIA_S3_ENDPOINT,
      forcePathStyle: true,
      region: process.env.AWS_REGION,
    });
    const open = await client.send(
      new ListMultipartUploadsCommand({ Bucket: process.env.HAPPY_MEDIA_S3_BUCKET, Prefix: prefix }),
    );
    expect(open.Uploads ?? []).toEqual([]);
  });

  it('opens from an s3:// spec with endpoint and credentials from the environment', async () => {
    const store = openStore(`s3://${process.env.HAPPY_MEDIA_S3_BUCKET}/${prefix}spec`);
    const { ref } = await store.create(10, () => streamOf(new Uint8Array(10)));
    expect(await store.head(ref)).toEqual({ size: 10 });
    await store.delete?.(ref);
  });

  it('reports a wrong secret as ERR_UPLOAD_FAILED without echoing it', async () => {
    const secret = 'not-the-secret-123456';
    const store = new S3BlobStore({
      prefix,
      credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'x', secretAccessKey: secret },
    });
    const error = await store.put(createMediaRef(), streamOf(new Uint8Array(10)), 10).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'ERR_UPLOAD_FAILED' });
    expect(String((error as Error).message)).not.toContain(secret);
  });
});

describe('S3BlobStore arguments', () => {
  it('needs a valid bucket and a part size of at least 5 MiB', () => {
    expect(() => new S3BlobStore({ bucket: 'A_B' })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => new S3BlobStore({ bucket: 'ok-bucket', partSize: 1024 })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(new S3BlobStore({ bucket: 'ok-bucket', prefix: '/a/b' }).keyOf('media/abc')).toBe('a/b/media/abc');
    expect(() => new S3BlobStore({ bucket: 'ok-bucket' }).keyOf('media/../x')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_REF' }),
    );
  });
});
