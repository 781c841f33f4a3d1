/**
 * AES-256-GCM over any module with node:crypto's Cipher API: node:crypto in Node (`nodeAesGcm`),
 * react-native-quick-crypto (the same API over JSI, native OpenSSL) in a React Native app. The universal
 * entry never imports either: the caller hands the module in.
 *
 * GCM cannot restart a cipher with a new nonce, so every piece costs a `createCipheriv` (and `update`,
 * `final`, `getAuthTag` allocate). `sealInto`/`openInto` copy each piece's bytes straight into the
 * caller's array (a dataKey record, a blob batch), so the per-piece cost is those native calls only.
 *
 * @module
 */
import { DecryptionError, InternalError, InvalidArgumentError } from '../errors.js';
import { AES_GCM_TAG_BYTES, type SyncAesGcm } from './aes-gcm.js';

/** AES-GCM encryption object as `createCipheriv('aes-256-gcm', ...)` returns it. */
export interface GcmCipherLike {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}

/** AES-GCM decryption object as `createDecipheriv('aes-256-gcm', ...)` returns it. */
export interface GcmDecipherLike {
  setAuthTag(tag: Uint8Array): unknown;
  update(data: Uint8Array): Uint8Array;
  /** Throws when the tag does not verify. */
  final(): Uint8Array;
}

/**
 * A module with node:crypto's `createCipheriv` / `createDecipheriv` (`node:crypto`,
 * `react-native-quick-crypto`, or anything API-compatible).
 *
 * @example
 * ```ts
 * import * as nodeCrypto from 'node:crypto';
 * const module: CipherModule = nodeCrypto;
 * // React Native: import QuickCrypto from 'react-native-quick-crypto';
 * ```
 */
export interface CipherModule {
  createCipheriv(
    algorithm: 'aes-256-gcm',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: number },
  ): GcmCipherLike;
  createDecipheriv(
    algorithm: 'aes-256-gcm',
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: number },
  ): GcmDecipherLike;
}

/** Options of {@link cipherModuleAesGcm}. */
export interface CipherModuleAesGcmOptions {
  /** Diagnostic name (default `node-crypto`); Node's is `node`, an app's typically `quick-crypto`. */
  name?: string;
}

const AES_256_GCM = 'aes-256-gcm';

/** Cipher options shared by every call (no object allocated per piece). */
const TAG_OPTIONS = Object.freeze({ authTagLength: AES_GCM_TAG_BYTES });

/** `sealInto` over `module`: the ciphertext and tag written into `out` at `at`. */
function sealIntoWith(module: CipherModule): NonNullable<SyncAesGcm<Uint8Array>['sealInto']> {
  return (key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, out: Uint8Array, at: number): void => {
    const cipher = module.createCipheriv(AES_256_GCM, key, nonce, TAG_OPTIONS);
    const body = cipher.update(plaintext);
    out.set(body, at);
    // GCM is a stream mode: final() adds no bytes, but the tag exists only after it.
    const rest = cipher.final();
    if (rest.length > 0) out.set(rest, at + body.length);
    // Every byte of a possibly uninitialised `out` must be written: never hand out stale memory.
    if (body.length + rest.length !== plaintext.length) {
      throw new InternalError('the AES-GCM module returned an unexpected ciphertext length');
    }
    out.set(cipher.getAuthTag(), at + plaintext.length);
  };
}

/**
 * `openInto` over `module`: the plaintext written into `out` at `at`, every failure the same
 * {@link DecryptionError} (the caller wipes what was written into `out`).
 */
function openIntoWith(module: CipherModule): NonNullable<SyncAesGcm<Uint8Array>['openInto']> {
  return (key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, out: Uint8Array, at: number): void => {
    if (sealed.length < AES_GCM_TAG_BYTES) throw new DecryptionError();
    const bodyLength = sealed.length - AES_GCM_TAG_BYTES;
    let body: Uint8Array | undefined;
    try {
      const decipher = module.createDecipheriv(AES_256_GCM, key, nonce, TAG_OPTIONS);
      decipher.setAuthTag(sealed.subarray(bodyLength));
      body = decipher.update(sealed.subarray(0, bodyLength));
      // Throws on a bad tag. Only then is anything written: `out` may be a caller's array (random access
      // into a player's buffer), which must never hold an unverified byte, and the copy costs the same.
      const rest = decipher.final();
      if (body.length + rest.length !== bodyLength) throw new DecryptionError();
      out.set(body, at);
      if (rest.length > 0) out.set(rest, at + body.length);
    } catch {
      // The module's message is dropped so every failure is alike; its unverified output is wiped.
      body?.fill(0);
      throw new DecryptionError();
    }
  };
}

/**
 * A synchronous {@link SyncAesGcm} over `module`, with both fast paths (`sealInto`, `openInto`). The
 * prepared key is the key's bytes themselves: node:crypto takes raw bytes in every call (a `KeyObject`
 * is no faster), and a copy per envelope would cost more than the rest of a small one's opening.
 *
 * @param module - `node:crypto`, `react-native-quick-crypto`, or an API-compatible module.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a module without `createCipheriv` /
 *   `createDecipheriv`, or a name that is not a non-empty string.
 * @example
 * ```ts
 * import QuickCrypto from 'react-native-quick-crypto';
 * installRuntime({ aesGcm: cipherModuleAesGcm(QuickCrypto, { name: 'quick-crypto' }) });
 * ```
 */
export function cipherModuleAesGcm(
  module: CipherModule,
  options: CipherModuleAesGcmOptions = {},
): SyncAesGcm<Uint8Array> {
  const m = module as Partial<CipherModule> | null;
  if (
    (typeof m !== 'object' && typeof m !== 'function') ||
    m === null ||
    typeof m.createCipheriv !== 'function' ||
    typeof m.createDecipheriv !== 'function'
  ) {
    throw new InvalidArgumentError(
      'expected a module with createCipheriv() and createDecipheriv() (node:crypto, react-native-quick-crypto) for `module`',
    );
  }
  const name = options.name ?? 'node-crypto';
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidArgumentError('expected a non-empty string for `options.name`');
  }

  const sealInto = sealIntoWith(module);
  const openInto = openIntoWith(module);

  return Object.freeze({
    name,
    mode: 'sync',
    importKey: (key: Uint8Array) => key,
    seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array) {
      const out = new Uint8Array(plaintext.length + AES_GCM_TAG_BYTES);
      sealInto(key, nonce, plaintext, out, 0);
      return out;
    },
    open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array) {
      if (sealed.length < AES_GCM_TAG_BYTES) throw new DecryptionError();
      const bodyLength = sealed.length - AES_GCM_TAG_BYTES;
      let plain: Uint8Array | undefined;
      try {
        const decipher = module.createDecipheriv(AES_256_GCM, key, nonce, TAG_OPTIONS);
        decipher.setAuthTag(sealed.subarray(bodyLength));
        plain = decipher.update(sealed.subarray(0, bodyLength));
        // GCM's final() returns no bytes (it checks the tag); a module that did is still read right.
        const rest = decipher.final();
        if (rest.length > 0) {
          const joined = new Uint8Array(plain.length + rest.length);
          joined.set(plain);
          joined.set(rest, plain.length);
          plain = joined;
        }
      } catch {
        plain?.fill(0);
        throw new DecryptionError();
      }
      if (plain.length !== bodyLength) throw new DecryptionError();
      // A plain Uint8Array view (not the module's Buffer class, whose slice() does not copy).
      return new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength);
    },
    sealInto,
    openInto,
  } as const);
}
