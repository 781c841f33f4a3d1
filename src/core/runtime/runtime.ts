/**
 * The runtime: the platform's speed-ups every layer uses, installed once as one object.
 *
 * | part | what it is | universal default | Node (`happy-media/node`) |
 * |---|---|---|---|
 * | `aesGcm` | the AES-256-GCM of envelopes and blobs | `webCryptoAesGcm` where `crypto.subtle` exists, else `nobleAesGcm` | node:crypto (`nodeAesGcm`) |
 * | `base64` | standard base64 (envelopes' `c`, `toBase64`) | `@scure/base` | Node's `Buffer` codec |
 * | `alloc` | scratch and output arrays of the hot paths | ordinary arrays | Node's `Buffer` pool, no zero-fill |
 *
 * Every implementation of a part gives the same bytes and refuses the same inputs (the tests check each), so
 * a runtime changes speed, never results.
 *
 * @module
 */
import { type AesGcm, assertAesGcm } from '../aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../aes-gcm/noble.js';
import { webCryptoAesGcm } from '../aes-gcm/webcrypto.js';
import { InvalidArgumentError } from '../errors.js';
import { type Base64Codec, scureBase64Codec } from './base64-codec.js';
import { type ByteAllocator, plainByteAllocator } from './byte-allocator.js';

/** The platform parts every layer uses. */
export interface Runtime {
  /**
   * The AES-256-GCM of blobs (every chunk) and envelopes (the dataKey variant). Synchronous or
   * asynchronous: the synchronous envelope API (`sealMessage`, ...) uses it when it is synchronous and
   * `nobleAesGcm` otherwise; the `...Async` envelope functions and the blob engines use it either way.
   */
  readonly aesGcm: AesGcm;
  /** Standard padded base64, strict. */
  readonly base64: Base64Codec;
  /** Scratch and output arrays of the hot paths. */
  readonly alloc: ByteAllocator;
}

/** True when this runtime has WebCrypto's `crypto.subtle` (browsers, Node; not bare React Native). */
function hasSubtle(): boolean {
  return typeof globalThis.crypto?.subtle?.encrypt === 'function';
}

/** The universal runtime with `parts` put in its place. */
function runtimeOf(parts: Partial<Runtime>): Runtime {
  return Object.freeze({
    aesGcm: parts.aesGcm ?? (hasSubtle() ? webCryptoAesGcm : nobleAesGcm),
    base64: parts.base64 ?? scureBase64Codec,
    alloc: parts.alloc ?? plainByteAllocator,
  });
}

let current: Runtime | undefined;

/**
 * Installs the runtime every layer uses from now on: the parts given, and the universal default for each
 * part left out (so `installRuntime({ aesGcm: nobleAesGcm })` is all pure JS). `happy-media/node` installs
 * Node's on import (`nodeRuntime`); an app installs its native AES-GCM once at start. To change one part
 * of the current runtime, spread it: `installRuntime({ ...getRuntime(), aesGcm })`. Returns what is
 * installed.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a part is not what its field needs (an
 *   `AesGcm` without `mode` or methods, a codec without `encode`/`decode`, an allocator without its
 *   three functions).
 * @example
 * ```ts
 * import QuickCrypto from 'react-native-quick-crypto';
 * installRuntime({ aesGcm: cipherModuleAesGcm(QuickCrypto, { name: 'quick-crypto' }) });
 * ```
 */
export function installRuntime(parts: Partial<Runtime> = {}): Runtime {
  if (typeof parts !== 'object' || parts === null) {
    throw new InvalidArgumentError(
      'expected an object of runtime parts { aesGcm?, base64?, alloc? } for `parts`',
    );
  }
  if (parts.aesGcm !== undefined) assertAesGcm(parts.aesGcm, 'parts.aesGcm');
  const base64 = parts.base64 as Partial<Base64Codec> | undefined;
  if (
    base64 !== undefined &&
    (typeof base64 !== 'object' ||
      base64 === null ||
      typeof base64.name !== 'string' ||
      typeof base64.encode !== 'function' ||
      typeof base64.decode !== 'function')
  ) {
    throw new InvalidArgumentError(
      'expected a Base64Codec with name, encode() and decode() for `parts.base64`',
    );
  }
  const alloc = parts.alloc as Partial<ByteAllocator> | undefined;
  if (
    alloc !== undefined &&
    (typeof alloc !== 'object' ||
      alloc === null ||
      typeof alloc.name !== 'string' ||
      typeof alloc.output !== 'function' ||
      typeof alloc.scratch !== 'function' ||
      typeof alloc.utf8 !== 'function')
  ) {
    throw new InvalidArgumentError(
      'expected a ByteAllocator with name, output(), scratch() and utf8() for `parts.alloc`',
    );
  }
  current = runtimeOf(parts);
  return current;
}

/**
 * The runtime in use: the one installed last, else the universal one.
 *
 * @example
 * ```ts
 * getRuntime().aesGcm.name; // 'node' after importing happy-media/node
 * ```
 */
export function getRuntime(): Runtime {
  if (current === undefined) current = runtimeOf({});
  return current;
}
