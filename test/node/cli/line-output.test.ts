/** The CLI's gathered standard output: few writes, nothing held past a turn of the event loop, nothing lost at the end. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LineOutput, type LineSink } from '../../../src/cli/line-output.js';

/** A sink that records each write, and says "full" (false) while `full` is set, until `drain()`. */
interface RecordingSink extends LineSink {
  full: boolean;
  writes: string[];
  drain(): void;
}

function recordingSink(): RecordingSink {
  const writes: string[] = [];
  let onDrain: (() => void) | undefined;
  const sink: RecordingSink = {
    full: false,
    writes,
    write(text: string) {
      writes.push(text);
      return !sink.full;
    },
    once(_event: 'drain', listener: () => void) {
      onDrain = listener;
    },
    drain() {
      sink.full = false;
      onDrain?.();
    },
  };
  return sink;
}

describe('LineOutput', () => {
  it('gathers the lines of one turn of the event loop into one write, in order', async () => {
    const sink = recordingSink();
    const out = new LineOutput(sink);
    for (let i = 0; i < 100; i++) await out.write(`line ${i}\n`);
    expect(sink.writes).toEqual([]);
    await nextTurn();
    expect(sink.writes).toHaveLength(1);
    expect(sink.writes[0]).toBe(Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(''));
    // A later line goes out on its own turn: nothing waits for a batch to fill.
    await out.write('later\n');
    await nextTurn();
    expect(sink.writes).toEqual([sink.writes[0], 'later\n']);
  });

  it('writes at once past 64 KiB, and waits for the pipe to drain when it is full', async () => {
    const sink = recordingSink();
    const out = new LineOutput(sink);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 63; i++) await out.write(line);
    expect(sink.writes).toEqual([]);
    sink.full = true;
    let resolved = false;
    const full = out.write(line).then(() => {
      resolved = true;
    });
    expect(sink.writes).toEqual([line.repeat(64)]);
    await nextTurn();
    expect(resolved).toBe(false);
    sink.drain();
    await full;
    expect(resolved).toBe(true);
  });

  it('flush writes what is held at once (a command that ends or fails loses nothing)', async () => {
    const sink = recordingSink();
    const out = new LineOutput(sink);
    await out.write('a\n');
    await out.write('b\n');
    await out.flush();
    expect(sink.writes).toEqual(['a\nb\n']);
    await nextTurn();
    await out.flush();
    expect(sink.writes).toEqual(['a\nb\n']);
  });
});
