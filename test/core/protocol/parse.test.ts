import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../../src/core/errors.js';
import { assertSessionMessage, parseSessionMessage } from '../../../src/core/protocol/index.js';
import { example } from './examples.js';

describe('parseSessionMessage modes', () => {
  it('defaults to tolerant: fields the protocol does not define are dropped', () => {
    const value = example('agent:text', { priority: 'high', model: { name: 'x' } });
    const result = parseSessionMessage(value);
    expect(result.success).toBe(true);
    if (result.success) {
      expect(result.data).toEqual(example('agent:text'));
      expect(result.data).not.toHaveProperty('priority');
    }
  });

  it('drops unknown fields inside permission options too', () => {
    const value = example('agent:permission-request');
    (value.options as Record<string, unknown>[])[0]!.shortcut = 'y';
    const result = parseSessionMessage(value);
    expect(result.success).toBe(true);
    if (result.success && result.data.type === 'permission-request') {
      expect(result.data.options[0]).toEqual({ id: 'allow-once', label: 'Allow once', kind: 'allow-once' });
    }
    const strict = parseSessionMessage(value, { mode: 'strict' });
    expect(strict.success).toBe(false);
    if (!strict.success) expect(strict.error.issues[0]!.path).toEqual(['options', 0]);
  });

  it('strict mode rejects unknown fields, naming them', () => {
    const result = parseSessionMessage(example('user:text', { priority: 'high' }), { mode: 'strict' });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: [] });
      expect(result.error.message).toContain('priority');
    }
  });

  it('tolerant mode still rejects a known field in the wrong place', () => {
    for (const value of [
      example('user:text', { thinking: true }),
      example('agent:text', { status: 'completed' }),
      example('user:photo', { callId: 'c1' }),
      example('agent:turn-start', { options: [] }),
    ]) {
      const result = parseSessionMessage(value);
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.issues[0]!.code).toBe('unrecognized_keys');
    }
  });

  it('never lets a "__proto__" key change a prototype', () => {
    const top = JSON.parse(
      '{"__proto__":{"polluted":1},"id":"a","time":1,"role":"user","type":"text","text":"hi"}',
    );
    const tolerant = parseSessionMessage(top);
    expect(tolerant.success).toBe(true);
    if (tolerant.success) expect(Object.getPrototypeOf(tolerant.data)).toBe(Object.prototype);
    expect(parseSessionMessage(top, { mode: 'strict' }).success).toBe(false);
    const args = JSON.parse(
      '{"id":"a","time":1,"role":"agent","type":"tool-call-start","turn":"t","callId":"c","toolName":"x","title":"t","description":"d","args":{"__proto__":{"polluted":1}}}',
    );
    const parsed = parseSessionMessage(args);
    expect(parsed.success).toBe(true);
    if (parsed.success && parsed.data.type === 'tool-call-start') {
      expect(Object.getPrototypeOf(parsed.data.args)).toBe(Object.prototype);
      expect((parsed.data.args as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('does not modify its input', () => {
    const value = example('agent:text', { extra: 1 });
    const before = structuredClone(value);
    parseSessionMessage(value);
    expect(value).toEqual(before);
  });
});

describe('assertSessionMessage', () => {
  it('returns the typed message', () => {
    const message = assertSessionMessage(example('agent:tool-call-start'));
    expect(message.type).toBe('tool-call-start');
    if (message.type === 'tool-call-start') expect(message.args).toEqual({ command: 'ls -la' });
  });

  it('throws SchemaError ERR_SCHEMA with every issue and its path', () => {
    let caught: unknown;
    try {
      assertSessionMessage(example('agent:photo', { width: -5, ref: 'nope' }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SchemaError);
    const error = caught as SchemaError;
    expect(error.code).toBe('ERR_SCHEMA');
    expect(error.issues.map((i) => i.path)).toEqual(expect.arrayContaining([['width'], ['ref']]));
    expect(error.message).toMatch(/^invalid "photo" message: /);
    expect(error.message).toContain('width');
  });

  it('does not echo message text in the error', () => {
    const secret = 'hunter2-very-private-prompt';
    const result = parseSessionMessage({ ...example('user:text', { text: secret }), time: 'later' });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.message).not.toContain(secret);
      expect(JSON.stringify(result.error.issues)).not.toContain(secret);
    }
  });
});
