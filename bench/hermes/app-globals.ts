/**
 * The globals a React Native (Hermes) app has, installed the way an app installs them, for the Hermes
 * runs of the universal entry (test/hermes, the `hermes` bench suite). Bundled first, before the library.
 *
 * What React Native itself provides and the Hermes CLI does not: `setTimeout` is there; `AbortController`
 * (RN ships one), `URL` and `Headers` (RN's own and whatwg-fetch's) are added here as minimal stand-ins. What an app adds itself (docs/playback.md, "Happy app
 * (Expo) playback"): Web Streams (`web-streams-polyfill`), `TextEncoder`/`TextDecoder` (Hermes ≥ RN 0.74
 * has TextEncoder, Expo SDK ≥ 52 TextDecoder; the library decodes strictly, `{ fatal: true }`, which
 * fast-text-encoding lacks; here small stand-ins) and `crypto.getRandomValues`
 * (`react-native-get-random-values`, native; here a non-cryptographic stand-in, good for tests and
 * benchmarks only). Deliberately absent: `crypto.subtle`,
 * `Buffer`, `process`.
 *
 * @module
 */
import './rn-runtime.js';
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableStream,
  TransformStream,
  WritableStream,
} from 'web-streams-polyfill/es5';

const g = globalThis as unknown as Record<string, unknown>;
Object.assign(g, {
  ReadableStream,
  WritableStream,
  TransformStream,
  CountQueuingStrategy,
  ByteLengthQueuingStrategy,
});

/** React Native's AbortController/AbortSignal, as far as the library and the polyfills use them. */
class SignalStandIn {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: { type: string }) => void) | null = null;
  readonly #listeners = new Set<(event: { type: string }) => void>();
  addEventListener(_type: string, listener: (event: { type: string }) => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: string, listener: (event: { type: string }) => void): void {
    this.#listeners.delete(listener);
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new Error('This operation was aborted');
    const event = { type: 'abort' };
    this.onabort?.(event);
    for (const listener of [...this.#listeners]) listener(event);
  }
}
class AbortControllerStandIn {
  readonly signal = new SignalStandIn();
  abort(reason?: unknown): void {
    this.signal.fire(reason);
  }
}
g.AbortController = AbortControllerStandIn;
g.AbortSignal = SignalStandIn;

/**
 * UTF-8 `TextEncoder`/`TextDecoder` stand-ins (what Hermes/Expo provide in an app; see the module
 * comment). The decoder honours `fatal` (the library decodes strictly): `decodeURIComponent` throws on
 * malformed UTF-8, which is exactly the strict check.
 */
class Utf8Encoder {
  readonly encoding = 'utf-8';
  encode(text = ''): Uint8Array {
    const binary = unescape(encodeURIComponent(text));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }
}
class Utf8Decoder {
  readonly encoding = 'utf-8';
  readonly fatal: boolean;
  constructor(label = 'utf-8', options: { fatal?: boolean } = {}) {
    if (!/^utf-?8$/i.test(label)) throw new RangeError(`unsupported encoding ${label}`);
    this.fatal = options.fatal === true;
  }
  decode(bytes: Uint8Array = new Uint8Array(0)): string {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 8192) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
    }
    try {
      const text = decodeURIComponent(escape(binary));
      return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    } catch {
      if (this.fatal) throw new TypeError('The encoded data was not valid UTF-8');
      return binary;
    }
  }
}
g.TextEncoder = Utf8Encoder;
g.TextDecoder = Utf8Decoder;

// react-native-get-random-values stand-in. NOT random enough for keys: tests and benchmarks only.
let state = 0x9e3779b9;
g.crypto = {
  getRandomValues<T extends ArrayBufferView>(array: T): T {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[i] = (state ^ (Math.random() * 256)) & 0xff;
    }
    return array;
  },
};

// React Native's URL: parses absolute URLs, `href`, `toString()` (most getters are not implemented there).
if (typeof g.URL !== 'function') {
  g.URL = function URL(this: { href: string }, url: string) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(String(url))) throw new TypeError(`Invalid URL: ${url}`);
    this.href = String(url);
  };
  (g.URL as { prototype: object }).prototype = {
    toString(this: { href: string }) {
      return this.href;
    },
  };
}

// whatwg-fetch's Headers, as far as the library uses it (an empty set of headers).
if (typeof g.Headers !== 'function') {
  g.Headers = function Headers(this: { map: Record<string, string> }) {
    this.map = {};
  };
  (g.Headers as { prototype: object }).prototype = {
    get(this: { map: Record<string, string> }, name: string) {
      return this.map[name.toLowerCase()] ?? null;
    },
  };
}
