/**
 * expoFileSource over an expo-file-system that follows SDK 55's documented semantics: the exact bytes in
 * reads of 256 KiB (never below 64 KiB), the handle closed at the end, on error and on cancel, a file that
 * changes size while read fails, a missing file is ERR_UNREADABLE_INPUT.
 */
import { describe, expect, it } from 'vitest';
import { createDecryptStream, createEncryptStream, unboundBlobContext } from '../../src/core/blob/index.js';
import { joinBytes, randomBytes } from '../../src/core/bytes.js';
import { EXPO_MIN_READ_BYTES, EXPO_READ_BYTES } from '../../src/expo/file-source.js';
import { expoFileSource } from '../../src/expo/index.js';
import { testBytes } from '../core/blob/blob-test-utils.js';
import { codeOf, rejectionCodeOf } from '../helpers/errors.js';
import { type FakeExpoFileSystem, fakeExpoFileSystem } from '../helpers/fake-expo-file-system.js';

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return joinBytes(parts);
}

function fileWith(fs: FakeExpoFileSystem, bytes: Uint8Array) {
  const file = new fs.File(fs.Paths.cache, 'picked.mov');
  file.create();
  file.write(bytes);
  return file;
}

describe('expoFileSource', () => {
  it('streams the exact bytes in 256 KiB reads and closes the handle', async () => {
    const fs = fakeExpoFileSystem();
    const bytes = testBytes(1_000_000 + 5, 2);
    const { stream, size } = expoFileSource(fileWith(fs, bytes));
    expect(size).toBe(bytes.length);
    const got = await collect(stream);
    expect(got.length).toBe(bytes.length);
    expect(got.every((v, i) => v === bytes[i])).toBe(true);
    const reads = fs.calls.filter((c) => c.op === 'readBytes').map((c) => c.bytes);
    // Whole reads of 256 KiB, the rest, then one byte to prove the end.
    expect(reads.slice(0, 3)).toEqual([EXPO_READ_BYTES, EXPO_READ_BYTES, EXPO_READ_BYTES]);
    expect(
      reads.slice(0, -1).every((n) => n >= EXPO_MIN_READ_BYTES || n === bytes.length % EXPO_READ_BYTES),
    ).toBe(true);
    expect(fs.openHandles.size).toBe(0);
  });

  it('gives random access to the same file through a second handle, closed with the stream', async () => {
    const fs = fakeExpoFileSystem();
    const bytes = testBytes(700_000, 6);
    const { stream, ranges } = expoFileSource(fileWith(fs, bytes));
    expect(await ranges.size()).toBe(bytes.length);
    for (const [offset, length] of [
      [600_000, 300_000],
      [5, 10],
      [0, 1],
    ] as const) {
      const got = await ranges.read(offset, length);
      const want = bytes.subarray(offset, Math.min(bytes.length, offset + length));
      expect(got.length === want.length && got.every((v, i) => v === want[i])).toBe(true);
    }
    expect(fs.openHandles.size).toBe(2);
    await collect(stream);
    expect(fs.openHandles.size).toBe(0);
    expect(await rejectionCodeOf(ranges.read(0, 10))).toBe('ERR_DISK');
  });

  it('encrypts as a stream, round trip through the blob format', async () => {
    const fs = fakeExpoFileSystem();
    const bytes = testBytes(300_000, 4);
    const key = randomBytes(32);
    const { stream } = expoFileSource(fileWith(fs, bytes), { readBytes: EXPO_MIN_READ_BYTES });
    const back = await collect(
      stream
        .pipeThrough(createEncryptStream(key, { context: unboundBlobContext() }))
        .pipeThrough(createDecryptStream(key, { context: unboundBlobContext() })),
    );
    expect(back.every((v, i) => v === bytes[i]) && back.length === bytes.length).toBe(true);
  });

  it('an empty file is an empty stream', async () => {
    const fs = fakeExpoFileSystem();
    const { stream, size } = expoFileSource(fileWith(fs, new Uint8Array(0)));
    expect(size).toBe(0);
    expect((await collect(stream)).length).toBe(0);
    expect(fs.openHandles.size).toBe(0);
  });

  it('a file that grows or shrinks while it is read fails with ERR_DISK', async () => {
    for (const change of [1, -1]) {
      const fs = fakeExpoFileSystem();
      const bytes = testBytes(600_000, 5);
      const file = fileWith(fs, bytes);
      const { stream } = expoFileSource(file);
      const reader = stream.getReader();
      await reader.read();
      const path = '/cache/picked.mov';
      fs.files.set(path, testBytes(bytes.length + change, 5));
      const code = await rejectionCodeOf(async () => {
        for (;;) if ((await reader.read()).done) return;
      });
      expect(code).toBe('ERR_DISK');
      expect(fs.openHandles.size).toBe(0);
    }
  });

  it('a failing read is ERR_DISK; cancel closes the handle', async () => {
    const fs = fakeExpoFileSystem();
    const file = fileWith(fs, testBytes(600_000, 6));
    fs.faults.push('readBytes');
    expect(await rejectionCodeOf(collect(expoFileSource(file).stream))).toBe('ERR_DISK');
    expect(fs.openHandles.size).toBe(0);
    const { stream } = expoFileSource(file);
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    expect(fs.openHandles.size).toBe(0);
  });

  it('a missing file is ERR_UNREADABLE_INPUT; small reads and non-files are refused', () => {
    const fs = fakeExpoFileSystem();
    expect(codeOf(() => expoFileSource(new fs.File(fs.Paths.cache, 'gone.jpg')))).toBe(
      'ERR_UNREADABLE_INPUT',
    );
    // The message every platform gives for an input it cannot read (core/unreadable-input.ts).
    expect(() => expoFileSource(new fs.File(fs.Paths.cache, 'gone.jpg'))).toThrow(
      /^cannot read "file:\/\/\/cache\/gone\.jpg": /,
    );
    const file = fileWith(fs, testBytes(10, 1));
    expect(codeOf(() => expoFileSource(file, { readBytes: 1024 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => expoFileSource('file:///x' as never))).toBe('ERR_INVALID_ARGUMENT');
  });
});
