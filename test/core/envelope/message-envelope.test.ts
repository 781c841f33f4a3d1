/** Envelopes of v2 messages and of raw JSON, Happy's session wrappers, and what each bad input gives. */
import { describe, expect, it } from 'vitest';
import { fromBase64, randomBytes, toBase64 } from '../../../src/core/bytes.js';
import {
  dataKey,
  encryptJson,
  legacyKey,
  openMessage,
  openRaw,
  parseEnvelope,
  sealMessage,
  sealRaw,
} from '../../../src/core/envelope/index.js';
import { HappyMediaError, SchemaError } from '../../../src/core/errors.js';
import { unwrapSessionContent, wrapForApp, wrapForCli } from '../../../src/core/happy/index.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';

function errorOf(fn: () => unknown): HappyMediaError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(HappyMediaError);
    return error as HappyMediaError;
  }
  throw new Error('expected a HappyMediaError but nothing was thrown');
}

const message: SessionMessage = {
  id: 'msg_abc125',
  time: 1710000000100,
  role: 'agent',
  type: 'text',
  turn: 'turn_xyz789',
  text: "I'll help you fix that bug.",
  thinking: false,
};
const keys = [legacyKey(randomBytes(32)), dataKey(randomBytes(32))];

describe.each(keys)('sealMessage / openMessage ($variant)', (key) => {
  it('round-trips a v2 message through { t: "encrypted", c }', () => {
    const envelope = sealMessage(message, key);
    expect(Object.keys(envelope).sort()).toEqual(['c', 't']);
    expect(envelope.t).toBe('encrypted');
    expect(() => fromBase64(envelope.c)).not.toThrow();
    expect(openMessage(envelope, key)).toEqual(message);
    // Survives the JSON trip through the server.
    expect(openMessage(JSON.parse(JSON.stringify(envelope)), key)).toEqual(message);
  });
  it('refuses to seal an invalid message, with paths', () => {
    const bad = { ...message, time: -1, extra: 'x' } as unknown as SessionMessage;
    const error = errorOf(() => sealMessage(bad, key));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.code).toBe('ERR_SCHEMA');
    const paths = (error as SchemaError).issues.map((issue) => issue.path.join('.'));
    expect(paths).toContain('time');
  });
  it('an authentic envelope that is not a v2 message is ERR_SCHEMA with paths; openRaw returns it', () => {
    const envelope = sealRaw({ ...message, role: 'user', type: 'turn-start' }, key);
    const error = errorOf(() => openMessage(envelope, key));
    expect(error.code).toBe('ERR_SCHEMA');
    expect((error as SchemaError).issues.length).toBeGreaterThan(0);
    expect(openRaw(envelope, key)).toEqual({ ...message, role: 'user', type: 'turn-start' });
  });
  it('tolerant by default for fields a newer writer added; strict on request', () => {
    const envelope = sealRaw({ ...message, futureField: 1 }, key);
    expect(openMessage(envelope, key)).toEqual(message);
    expect(errorOf(() => openMessage(envelope, key, { mode: 'strict' })).code).toBe('ERR_SCHEMA');
  });
  it('a wrong key is ERR_DECRYPTION_FAILED', () => {
    const envelope = sealMessage(message, key);
    const wrong = key.variant === 'legacy' ? legacyKey(randomBytes(32)) : dataKey(randomBytes(32));
    expect(errorOf(() => openMessage(envelope, wrong)).code).toBe('ERR_DECRYPTION_FAILED');
  });
  it('raw values of any JSON type round-trip', () => {
    for (const value of [null, 0, 'text', [1, 'two'], { nested: { deep: [true] } }]) {
      expect(openRaw(sealRaw(value, key), key)).toEqual(value);
    }
  });
});

describe('parseEnvelope', () => {
  it('accepts { t: "encrypted", c: string } and drops other fields', () => {
    expect(parseEnvelope({ t: 'encrypted', c: 'AA==', extra: 1 })).toEqual({ t: 'encrypted', c: 'AA==' });
  });
  it('rejects everything else as ERR_FORMAT', () => {
    for (const bad of [
      null,
      'text',
      [],
      {},
      { t: 'plain', c: 'AA==' },
      { t: 'encrypted' },
      { t: 'encrypted', c: 5 },
      { c: 'AA==' },
    ]) {
      expect(errorOf(() => parseEnvelope(bad)).code).toBe('ERR_FORMAT');
    }
  });
  it('openRaw rejects non-standard base64 in c as ERR_FORMAT', () => {
    const key = dataKey(randomBytes(32));
    // 8 bytes of JSON + 29 = 37 bytes, so c carries padding.
    const { c } = sealRaw({ ab: 1 }, key);
    expect(c.endsWith('==')).toBe(true);
    const urlSafe = c.replace(/\+/g, '-').replace(/\//g, '_');
    for (const bad of [c.replace(/=+$/, ''), `${c} `, `!${c}`, `${c}=`]) {
      expect(errorOf(() => openRaw({ t: 'encrypted', c: bad }, key)).code).toBe('ERR_FORMAT');
    }
    if (urlSafe !== c)
      expect(errorOf(() => openRaw({ t: 'encrypted', c: urlSafe }, key)).code).toBe('ERR_FORMAT');
  });
  it('a short or wrongly versioned record inside c is a format error', () => {
    const key = dataKey(randomBytes(32));
    expect(errorOf(() => openRaw({ t: 'encrypted', c: '' }, key)).code).toBe('ERR_FORMAT');
    expect(errorOf(() => openRaw({ t: 'encrypted', c: toBase64(new Uint8Array(28)) }, key)).code).toBe(
      'ERR_FORMAT',
    );
    const record = encryptJson({ a: 1 }, key);
    record[0] = 7;
    expect(errorOf(() => openRaw({ t: 'encrypted', c: toBase64(record) }, key)).code).toBe(
      'ERR_UNSUPPORTED_VERSION',
    );
  });
});

describe("Happy's session wrappers", () => {
  it('wrap as the CLI and the app do', () => {
    expect(wrapForCli(message)).toEqual({ role: 'session', content: message, meta: { sentFrom: 'cli' } });
    expect(wrapForApp(message)).toEqual({ role: 'session', content: { type: 'session', data: message } });
  });
  it('unwrap both forms, also after a seal/open round trip', () => {
    const key = dataKey(randomBytes(32));
    expect(unwrapSessionContent(openRaw(sealRaw(wrapForCli(message), key), key))).toEqual(message);
    expect(unwrapSessionContent(openRaw(sealRaw(wrapForApp(message), key), key))).toEqual(message);
    const envelope = sealMessage(message, key);
    expect(unwrapSessionContent(wrapForCli(envelope))).toEqual(envelope);
    expect(unwrapSessionContent(wrapForApp(envelope))).toEqual(envelope);
  });
  it('anything that is not a session wrapper is ERR_FORMAT', () => {
    for (const bad of [null, message, { role: 'user', content: message }, { role: 'session' }, []]) {
      expect(errorOf(() => unwrapSessionContent(bad)).code).toBe('ERR_FORMAT');
    }
  });
});
