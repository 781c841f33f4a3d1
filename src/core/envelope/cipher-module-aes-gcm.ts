/**
 * The dataKey variant's AES-256-GCM over a module with node:crypto's Cipher API ({@link CipherModule}):
 * node:crypto in Node (`happy-media/node` installs it), react-native-quick-crypto in a React Native app.
 * Same bytes as the universal @noble/ciphers implementation.
 *
 * @module
 */
import { BACKEND_NAME_PATTERN, type CipherModule, isCipherModule } from '../crypto/cipher-module.js';
import { DecryptionError, InvalidArgumentError } from '../errors.js';
import type { EnvelopeAesGcm } from './aes-gcm-backend.js';
import { DATA_KEY_TAG_BYTES } from './layout.js';

const TAG_OPTIONS = Object.freeze({ authTagLength: DATA_KEY_TAG_BYTES });

/**
 * An {@link EnvelopeAesGcm} over `module` (12-byte nonce, 16-byte tag appended, no AAD).
 *
 * @param module - `node:crypto`, `react-native-quick-crypto`, or an API-compatible module.
 * @param name - diagnostic name (default `node-crypto`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a module without the Cipher API or a bad name.
 * @example
 * ```ts
 * import QuickCrypto from 'react-native-quick-crypto';
 * setEnvelopeAesGcm(cipherModuleEnvelopeAesGcm(QuickCrypto, 'quick-crypto'));
 * ```
 */
export function cipherModuleEnvelopeAesGcm(module: CipherModule, name = 'node-crypto'): EnvelopeAesGcm {
  if (!isCipherModule(module)) {
    throw new InvalidArgumentError(
      'expected a module with createCipheriv() and createDecipheriv() (node:crypto, react-native-quick-crypto) for `module`',
    );
  }
  if (typeof name !== 'string' || !BACKEND_NAME_PATTERN.test(name)) {
    throw new InvalidArgumentError('expected 1 to 64 letters, digits, ".", "_" or "-" for `name`');
  }
  const sealInto = (
    plaintext: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
    out: Uint8Array,
    at: number,
  ): void => {
    const cipher = module.createCipheriv('aes-256-gcm', key, nonce, TAG_OPTIONS);
    const body = cipher.update(plaintext);
    out.set(body, at);
    // GCM adds no bytes in final(), but the tag exists only after it.
    const rest = cipher.final();
    out.set(rest, at + body.length);
    if (body.length + rest.length !== plaintext.length) {
      throw new Error('the AES-GCM module returned an unexpected ciphertext length');
    }
    out.set(cipher.getAuthTag(), at + plaintext.length);
  };
  return {
    name,
    seal(plaintext, nonce, key) {
      const out = new Uint8Array(plaintext.length + DATA_KEY_TAG_BYTES);
      sealInto(plaintext, nonce, key, out, 0);
      return out;
    },
    sealInto,
    open(sealed, nonce, key) {
      if (sealed.length < DATA_KEY_TAG_BYTES) throw new DecryptionError();
      const bodyLength = sealed.length - DATA_KEY_TAG_BYTES;
      let plain: Uint8Array | undefined;
      try {
        const decipher = module.createDecipheriv('aes-256-gcm', key, nonce, TAG_OPTIONS);
        decipher.setAuthTag(sealed.subarray(bodyLength));
        plain = decipher.update(sealed.subarray(0, bodyLength));
        decipher.final();
      } catch {
        // Unverified bytes are wiped, never returned; the module's message is dropped so every failure is alike.
        plain?.fill(0);
        throw new DecryptionError();
      }
      return new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength);
    },
  };
}
