import { describe, expect, it } from 'vitest';
import { decodeMediaData, sniffInlineMimeType } from '../../../src/core/mappers/media.js';
import { codeSpan, shortPath, shortText } from '../../../src/core/mappers/titles.js';
import { toBase64 } from '../../../src/envelope.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import {
  createAgentMapper,
  getMapperProvider,
  type MapperProvider,
  mapAgentOutput,
} from '../../../src/index.js';
import { mapValid, recordingMediaHandler, sequentialIds, steppingClock } from '../../helpers/mappers.js';

/** A toy provider: `{ say }` is agent text, `{ tool, done }` a call, `{ image }` a tool image, `{ user }` a prompt. */
const toy: MapperProvider = {
  name: 'toy',
  summary: 'test events',
  create: (writer) => ({
    async push(event) {
      const e = event as Record<string, string | undefined>;
      if (typeof e !== 'object' || e === null) {
        writer.skips.skip('unknown-event', typeof e);
      } else if (e.user !== undefined) {
        writer.endTurn('completed');
        writer.userText(e.user);
      } else if (e.say !== undefined) writer.agentText(e.say);
      else if (e.tool !== undefined) writer.startCall(e.tool, { toolName: 'T' });
      else if (e.done !== undefined) writer.endCall(e.done);
      else if (e.image !== undefined) await writer.media(e.image, { role: 'agent' }, { parent: e.in });
      else writer.skips.skip('unknown-event', 'toy');
    },
  }),
};

describe('createAgentMapper', () => {
  it('refuses an unknown provider name, listing the known ones', () => {
    expect(() => createAgentMapper('nope')).toThrow(InvalidArgumentError);
    expect(() => getMapperProvider('nope')).toThrow(/for `provider` but received "nope"/);
    expect(() => createAgentMapper({} as never)).toThrow(/MapperProvider/);
  });

  it('returns what each event produced, in order, and ends the stream', async () => {
    const mapper = createAgentMapper(toy, { clock: steppingClock(), createId: sequentialIds() });
    expect((await mapper.push({ user: 'hi' })).map((m) => m.type)).toEqual(['text']);
    expect((await mapper.push({ say: 'hello' })).map((m) => m.type)).toEqual(['turn-start', 'text']);
    expect(await mapper.push(42)).toEqual([]);
    expect((await mapper.push({ tool: 't1' })).map((m) => m.type)).toEqual(['tool-call-start']);
    const end = await mapper.end();
    expect(end.map((m) => m.type)).toEqual(['tool-call-end', 'turn-end']);
    expect(end[1]).toMatchObject({ status: 'cancelled' });
    expect(mapper.skipped()).toEqual({ total: 1, byReason: { 'unknown-event': 1 } });
    await expect(mapper.push({ say: 'late' })).rejects.toThrow(InvalidArgumentError);
    expect(await mapper.end()).toEqual([]);
  });

  it('serialises pushes: a slow upload does not let a later event overtake it', async () => {
    const { handler } = recordingMediaHandler();
    const mapper = createAgentMapper(toy, {
      media: async (upload, options) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return handler(upload, options);
      },
    });
    await mapper.push({ tool: 'shot' });
    const png = toBase64(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const [image, done] = await Promise.all([
      mapper.push({ image: png, in: 'shot' }),
      mapper.push({ done: 'shot' }),
    ]);
    expect(image!.map((m) => m.type)).toEqual(['photo']);
    expect(done!.map((m) => m.type)).toEqual(['tool-call-end']);
    expect(image![0]!.time).toBeLessThanOrEqual(done![0]!.time);
  });

  it('mapAgentOutput maps an async iterable into a complete stream', async () => {
    async function* events() {
      yield { user: 'go' };
      yield { say: 'ok' };
      yield { tool: 'a' };
      yield { done: 'a' };
    }
    const { messages, skipped } = await mapValid(toy, events());
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'text',
      'tool-call-start',
      'tool-call-end',
      'turn-end',
    ]);
    expect(messages.at(-1)).toMatchObject({ status: 'completed' });
    expect(skipped.total).toBe(0);
    await expect(mapAgentOutput(toy, 5 as never)).rejects.toThrow(/iterable of events/);
  });
});

describe('media data', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  it('decodes lenient base64: whitespace, base64url, missing padding, data: URIs', () => {
    const b64 = toBase64(png);
    for (const text of [
      b64,
      `${b64.slice(0, 4)}\n${b64.slice(4)}`,
      b64.replace(/=+$/, ''),
      `data:image/png;base64,${b64}`,
    ]) {
      const decoded = decodeMediaData(text, 100);
      expect(decoded.ok && decoded.bytes).toEqual(png);
    }
    expect(
      decodeMediaData(
        toBase64(new Uint8Array([0xfb, 0xff]))
          .replace('+', '-')
          .replace('/', '_'),
        10,
      ),
    ).toMatchObject({ ok: true });
    expect(decodeMediaData(`data:image/png;base64,${b64}`, 100)).toMatchObject({
      declaredMimeType: 'image/png',
    });
  });

  it('refuses invalid base64, non-base64 data URIs and oversize data before decoding', () => {
    for (const text of ['', 'A', '!!!!', 'QUJD*', 'data:image/png,notbase64', 42 as never]) {
      expect(decodeMediaData(text, 100), String(text)).toMatchObject({ ok: false, reason: 'invalid-media' });
    }
    expect(decodeMediaData('A'.repeat(40), 10)).toEqual({ ok: false, reason: 'media-too-large', size: 30 });
    expect(decodeMediaData(new Uint8Array(11), 10)).toMatchObject({
      ok: false,
      reason: 'media-too-large',
      size: 11,
    });
  });

  it('sniffs the inline formats', () => {
    expect(sniffInlineMimeType(png)).toBe('image/png');
    expect(sniffInlineMimeType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffInlineMimeType(new TextEncoder().encode('GIF89a'))).toBe('image/gif');
    expect(sniffInlineMimeType(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffInlineMimeType(new TextEncoder().encode('xxxx\0\0\0\0WEBPVP8 '))).toBeUndefined();
    expect(sniffInlineMimeType(new TextEncoder().encode('%PDF-1.7'))).toBe('application/pdf');
  });
});

describe('titles', () => {
  it('keeps code spans literal and short', () => {
    expect(codeSpan('ls -la')).toBe('`ls -la`');
    expect(codeSpan('echo `date`')).toBe('`` echo `date` ``');
    expect(codeSpan('npm test\nnpm run build')).toBe('`npm test …`');
    expect(shortText('x'.repeat(100), 10)).toBe('xxxxxxxxx…');
    expect(shortPath('/a/b/c/d.ts')).toBe('…/c/d.ts');
    expect(shortPath('d.ts')).toBe('d.ts');
  });
});
