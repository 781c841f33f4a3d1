/**
 * The subset of the node:crypto Cipher API that happy-media's AES-256-GCM needs, as a structural type:
 * `node:crypto` satisfies it in Node, `react-native-quick-crypto` (the same API over JSI, native OpenSSL)
 * in a React Native app. Backends written against it run on whichever module the caller hands in, so the
 * universal entry never imports `node:`.
 *
 * @module
 */

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

/** Backend names: letters, digits, `.`, `_`, `-`, 1 to 64 characters. */
export const BACKEND_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** True when `module` has the two functions a {@link CipherModule} needs. */
export function isCipherModule(module: unknown): module is CipherModule {
  const m = module as Partial<CipherModule> | null;
  return (
    (typeof m === 'object' || typeof m === 'function') &&
    m !== null &&
    typeof m.createCipheriv === 'function' &&
    typeof m.createDecipheriv === 'function'
  );
}
