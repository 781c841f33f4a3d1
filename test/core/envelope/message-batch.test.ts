/** Batches of envelopes: openMessages / sealMessages against the one-by-one calls. */
import { describe, expect, it } from 'vitest';
import { randomBytes } from '../../../src/core/bytes.js';
import {
  dataKey,
  legacyKey,
  openMessage,
  openMessages,
  sealMessage,
  sealMessages,
  sealRaw,
} from '../../../src/core/envelope/index.js';
import { SchemaError } from '../../../src/core/errors.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';

const messages: SessionMessage[] = Array.from({ length: 50 }, (_, i) => ({
  id: `msg_${i}`,
  time: 1710000000000 + i,
  role: 'agent',
  type: 'text',
  turn: 'turn_1',
  text: `message number ${i} ${'x'.repeat(i * 7)}`,
  thinking: false,
}));

describe.each([
  ['legacy', legacyKey(randomBytes(32))],
  ['dataKey', dataKey(randomBytes(32))],
] as const)('%s batches', (_name, key) => {
  it('sealMessages then openMessages gives back every message, in order; each envelope opens alone too', () => {
    const envelopes = sealMessages(messages, key);
    expect(envelopes).toHaveLength(messages.length);
    // Fresh nonce per message: no two envelopes alike even for equal messages.
    expect(new Set(envelopes.map((e) => e.c)).size).toBe(messages.length);
    expect(openMessage(envelopes[7], key)).toEqual(messages[7]);
    const opened = openMessages(envelopes, key);
    expect(opened).toEqual(messages.map((message) => ({ ok: true, message })));
  });

  it('a damaged, foreign or non-message envelope is its own failure; the others still open', () => {
    const envelopes: unknown[] = messages.slice(0, 5).map((m) => sealMessage(m, key));
    const other = sealMessage(messages[0] as SessionMessage, dataKey(randomBytes(32)));
    const c = (envelopes[1] as { c: string }).c;
    envelopes[1] = { t: 'encrypted', c: `${c.slice(0, 10)}${c[10] === 'A' ? 'B' : 'A'}${c.slice(11)}` };
    envelopes[2] = other;
    envelopes[3] = sealRaw({ not: 'a message' }, key);
    envelopes.push('not an envelope');
    const opened = openMessages(envelopes, key);
    expect(opened.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual([
      'ok',
      'ERR_DECRYPTION_FAILED',
      'ERR_DECRYPTION_FAILED',
      'ERR_SCHEMA',
      'ok',
      'ERR_FORMAT',
    ]);
    expect(opened[4]).toEqual({ ok: true, message: messages[4] });
  });
});

describe('batch arguments', () => {
  const key = dataKey(randomBytes(32));
  it('sealMessages is all or nothing: an invalid message throws SchemaError naming its index', () => {
    const bad = [...messages.slice(0, 3), { ...messages[3], role: 'robot' } as unknown as SessionMessage];
    let thrown: unknown;
    try {
      sealMessages(bad, key);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SchemaError);
    expect((thrown as SchemaError).message).toMatch(/^message 3 of 4: /);
    expect((thrown as SchemaError).issues.length).toBeGreaterThan(0);
  });

  it('refuses a fixed nonce for several messages (it would be reused), a bad key and a non-array', () => {
    expect(() => sealMessages(messages.slice(0, 2), key, { nonce: new Uint8Array(12) })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(sealMessages(messages.slice(0, 1), key, { nonce: new Uint8Array(12) })).toHaveLength(1);
    expect(() => openMessages([], { variant: 'dataKey' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => openMessages('x' as never, key)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(openMessages([], key)).toEqual([]);
  });
});
