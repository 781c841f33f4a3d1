/**
 * `map`'s input reader: one JSON array is cut into its elements as the bytes come (never read whole),
 * JSON Lines are read as lines, and what does not fit either is counted, not fatal.
 */
import { describe, expect, it } from 'vitest';
import { readJsonInput } from '../../../src/cli/json-input.js';
import type { JsonLine } from '../../../src/index.js';

const encoder = new TextEncoder();

/** A stream of `text` in chunks of `size` bytes (1: byte by byte, across every boundary). */
function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>, maxItemBytes = 1 << 20): Promise<JsonLine[]> {
  const entries: JsonLine[] = [];
  for await (const entry of readJsonInput(stream, { maxItemBytes })) entries.push(entry);
  return entries;
}

const values = (entries: JsonLine[]) => entries.map((entry) => (entry.ok ? entry.value : entry.code));

const EVENTS = [
  { type: 'user', text: 'a "quoted" ] and } and , inside a string \\', nested: [[1, { b: [2] }], {}] },
  [1, 2, 3],
  'a string',
  42,
  null,
  { deep: { er: { still: ['x'] } } },
];

describe('readJsonInput', () => {
  it.each([1, 3, 7, 64, 1 << 16])(
    'reads one JSON array (chunks of %i bytes), pretty-printed or not',
    async (size) => {
      expect(values(await read(chunked(JSON.stringify(EVENTS), size)))).toEqual(EVENTS);
      expect(values(await read(chunked(`\n  ${JSON.stringify(EVENTS, null, 2)}\n\n`, size)))).toEqual(EVENTS);
    },
  );

  it('reads JSON Lines, and an empty array or input as nothing', async () => {
    const jsonl = `${EVENTS.filter((e) => typeof e === 'object' && e !== null && !Array.isArray(e))
      .map((e) => JSON.stringify(e))
      .join('\n')}\n`;
    expect(values(await read(chunked(jsonl, 5)))).toHaveLength(2);
    expect(await read(chunked('[]', 1))).toEqual([]);
    expect(await read(chunked('  \n ', 1))).toEqual([]);
  });

  it('yields each element before the array has ended', async () => {
    let more: ((chunk: Uint8Array) => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('[{"n":1},{"n":2},'));
        more = (chunk) => controller.enqueue(chunk);
      },
    });
    const reading = readJsonInput(stream, { maxItemBytes: 1024 });
    expect(await reading.next()).toMatchObject({ value: { ok: true, value: { n: 1 } } });
    expect(await reading.next()).toMatchObject({ value: { ok: true, value: { n: 2 } } });
    more!(encoder.encode('{"n":3}]'));
    expect(await reading.next()).toMatchObject({ value: { ok: true, value: { n: 3 } } });
  });

  it('reads an array cut before its closing bracket up to its last whole element', async () => {
    expect(values(await read(chunked('[{"n":1},\n{"n":2}', 4)))).toEqual([{ n: 1 }, { n: 2 }]);
    expect(values(await read(chunked('[{"n":1},{"n":', 4)))).toEqual([{ n: 1 }, 'INVALID_JSON']);
  });

  it('reads what follows a closed array as JSON Lines (a log line that began with "[")', async () => {
    expect(values(await read(chunked('[1,2]\n{"a":1}\n{"b":2}\n', 3)))).toEqual([1, 2, { a: 1 }, { b: 2 }]);
  });

  it('skips an element longer than the limit, and one that is not JSON, and goes on', async () => {
    const long = `{"text":"${'x'.repeat(5000)}"}`;
    const entries = await read(chunked(`[{"a":1},${long},{"b":nope},{"c":3}]`, 100), 1000);
    expect(values(entries)).toEqual([{ a: 1 }, 'LINE_TOO_LONG', 'INVALID_JSON', { c: 3 }]);
    expect(entries[1]).toMatchObject({ line: 2, message: expect.stringContaining('element 2') });
  });

  it('reads an element nested 200,000 levels deep', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const entries = await read(chunked(`[{"a":${deep}},{"b":1}]`, 1 << 16));
    expect(entries.map((entry) => entry.ok)).toEqual([true, true]);
  });
});
