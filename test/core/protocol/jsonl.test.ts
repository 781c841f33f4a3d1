import { describe, expect, it } from 'vitest';
import { type JsonLine, readJsonLines } from '../../../src/core/protocol/index.js';

const encoder = new TextEncoder();

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>, maxLineBytes?: number): Promise<JsonLine[]> {
  const out: JsonLine[] = [];
  for await (const entry of readJsonLines(stream, maxLineBytes === undefined ? {} : { maxLineBytes }))
    out.push(entry);
  return out;
}

const TEXT = '{"a":1}\n\n  \n{"b":[2,3]}\r\nnot json\n{"c":"é"}';

describe('readJsonLines', () => {
  it('yields values with their 1-based line numbers, skipping blank lines, CRLF or LF', async () => {
    expect(await collect(streamOf([TEXT]))).toEqual([
      { line: 1, ok: true, value: { a: 1 } },
      { line: 4, ok: true, value: { b: [2, 3] } },
      { line: 5, ok: false, code: 'INVALID_JSON', message: 'line 5 is not valid JSON' },
      { line: 6, ok: true, value: { c: 'é' } },
    ]);
  });

  it('gives the same result however the bytes are chunked (byte by byte, random splits)', async () => {
    const bytes = encoder.encode(TEXT);
    const whole = await collect(streamOf([bytes]));
    const byteByByte = await collect(streamOf(Array.from(bytes, (b) => new Uint8Array([b]))));
    expect(byteByByte).toEqual(whole);
    for (let seed = 1; seed < 20; seed++) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + ((seed * 7 + at * 13) % 9);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect(await collect(streamOf(chunks))).toEqual(whole);
    }
  });

  it('reports invalid UTF-8 and does not echo the line', async () => {
    const out = await collect(streamOf([new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]), 'secret-looking text\n']));
    expect(out[0]).toMatchObject({ line: 1, ok: false, code: 'INVALID_JSON' });
    expect(out[1]).toMatchObject({ line: 2, ok: false, code: 'INVALID_JSON' });
    expect(JSON.stringify(out)).not.toContain('secret');
  });

  it('skips and reports lines longer than maxLineBytes, then carries on', async () => {
    const long = `{"x":"${'a'.repeat(100)}"}`;
    const out = await collect(streamOf(['{"a":1}\n', long.slice(0, 50), long.slice(50), '\n{"b":2}\n']), 64);
    expect(out).toEqual([
      { line: 1, ok: true, value: { a: 1 } },
      {
        line: 2,
        ok: false,
        code: 'LINE_TOO_LONG',
        message: 'line 2 is longer than 64 bytes; it was skipped',
      },
      { line: 3, ok: true, value: { b: 2 } },
    ]);
    // Exactly at the limit is accepted, one byte more is not, and a CR does not count.
    const exact = `{"x":"${'a'.repeat(64 - 8)}"}`;
    expect(exact.length).toBe(64);
    expect((await collect(streamOf([`${exact}\r\n`]), 64))[0]).toMatchObject({ ok: true });
    expect((await collect(streamOf([`${exact} \n`]), 64))[0]).toMatchObject({ code: 'LINE_TOO_LONG' });
    expect((await collect(streamOf([`${exact} `]), 64))[0]).toMatchObject({ code: 'LINE_TOO_LONG' });
  });

  it('handles an empty stream and a last line without newline', async () => {
    expect(await collect(streamOf([]))).toEqual([]);
    expect(await collect(streamOf(['\n\n']))).toEqual([]);
    expect(await collect(streamOf(['1\n2']))).toEqual([
      { line: 1, ok: true, value: 1 },
      { line: 2, ok: true, value: 2 },
    ]);
  });
});
