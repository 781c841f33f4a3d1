/**
 * The dataKey variant's AES-256-GCM over node:crypto (OpenSSL, AES-NI): same bytes as the universal
 * @noble/ciphers implementation, many times faster on large messages. `happy-media/node` installs it
 * on import (see {@link setEnvelopeAesGcm}).
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { EnvelopeAesGcm } from '../../core/envelope/index.js';
import { DATA_KEY_TAG_BYTES } from '../../core/envelope/index.js';
import { DecryptionError } from '../../core/errors.js';

/** node:crypto AES-256-GCM, 12-byte nonce, 16-byte tag appended, no AAD. */
export const nodeEnvelopeAesGcm: EnvelopeAesGcm = {
  name: 'node',
  seal(plaintext, nonce, key) {
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: DATA_KEY_TAG_BYTES });
    const out = new Uint8Array(plaintext.length + DATA_KEY_TAG_BYTES);
    const body = cipher.update(plaintext);
    out.set(body, 0);
    // GCM adds no bytes in final(), but the tag exists only after it.
    out.set(cipher.final(), body.length);
    out.set(cipher.getAuthTag(), plaintext.length);
    return out;
  },
  open(sealed, nonce, key) {
    if (sealed.length < DATA_KEY_TAG_BYTES) throw new DecryptionError();
    const bodyLength = sealed.length - DATA_KEY_TAG_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: DATA_KEY_TAG_BYTES });
    decipher.setAuthTag(sealed.subarray(bodyLength));
    const plain = decipher.update(sealed.subarray(0, bodyLength));
    try {
      decipher.final();
    } catch {
      // Unverified bytes are wiped, never returned; OpenSSL's message is dropped so every failure is alike.
      plain.fill(0);
      throw new DecryptionError();
    }
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength);
  },
};
