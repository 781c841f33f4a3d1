/**
 * The dataKey variant's AES-256-GCM over node:crypto (OpenSSL, AES-NI): the Cipher-API implementation
 * ({@link cipherModuleEnvelopeAesGcm}) given node:crypto; same bytes as the universal @noble/ciphers
 * implementation, many times faster on large messages. `happy-media/node` installs it on import (see
 * {@link setEnvelopeAesGcm}).
 *
 * @module
 */
import * as nodeCrypto from 'node:crypto';
import { cipherModuleEnvelopeAesGcm, type EnvelopeAesGcm } from '../../core/envelope/index.js';

/** node:crypto AES-256-GCM, 12-byte nonce, 16-byte tag appended, no AAD. */
export const nodeEnvelopeAesGcm: EnvelopeAesGcm = cipherModuleEnvelopeAesGcm(nodeCrypto, 'node');
