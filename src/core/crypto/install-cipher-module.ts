/**
 * One call that puts a native AES-256-GCM under both layers: the blob backend and the envelope's dataKey
 * cipher. For React Native apps with react-native-quick-crypto (Node does it on `happy-media/node` import).
 *
 * @module
 */
import { type BlobBackend, registerBlobBackend } from '../blob/backend.js';
import { cipherModuleBlobBackend } from '../blob/backend-cipher-module.js';
import { setEnvelopeAesGcm } from '../envelope/aes-gcm-backend.js';
import { cipherModuleEnvelopeAesGcm } from '../envelope/cipher-module-aes-gcm.js';
import type { CipherModule } from './cipher-module.js';

/**
 * Registers a {@link cipherModuleBlobBackend} over `module` as the automatic blob backend and installs
 * {@link cipherModuleEnvelopeAesGcm} for the envelope's dataKey variant. Returns the blob backend.
 *
 * @param options.name - registry name (default `node-crypto`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a module without the Cipher API or a bad name.
 * @example
 * ```ts
 * import QuickCrypto from 'react-native-quick-crypto';
 * import { installCipherModule } from 'happy-media';
 * installCipherModule(QuickCrypto, { name: 'quick-crypto' });
 * ```
 */
export function installCipherModule(module: CipherModule, options: { name?: string } = {}): BlobBackend {
  const backend = cipherModuleBlobBackend(module, { name: options.name });
  const envelope = cipherModuleEnvelopeAesGcm(module, backend.name);
  registerBlobBackend(backend);
  setEnvelopeAesGcm(envelope);
  return backend;
}
