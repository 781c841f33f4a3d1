/**
 * One call that puts a native AES-256-GCM under both layers: the blob backend and the envelope's dataKey
 * cipher. For React Native apps with react-native-quick-crypto (Node does it on `happy-media/node` import).
 *
 * @module
 */
import type { SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { cipherModuleAesGcm } from '../aes-gcm/cipher-module.js';
import { setEnvelopeAesGcm } from '../envelope/aes-gcm-backend.js';
import { cipherModuleEnvelopeAesGcm } from '../envelope/cipher-module-aes-gcm.js';
import { getRuntime, installRuntime } from '../runtime/runtime.js';
import type { CipherModule } from './cipher-module.js';

/**
 * Installs {@link cipherModuleAesGcm} over `module` as the runtime's AES-GCM (blobs) and
 * {@link cipherModuleEnvelopeAesGcm} for the envelope's dataKey variant. Returns the runtime's AES-GCM.
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
export function installCipherModule(module: CipherModule, options: { name?: string } = {}): SyncAesGcm {
  const aesGcm = cipherModuleAesGcm(module, { name: options.name });
  const envelope = cipherModuleEnvelopeAesGcm(module, aesGcm.name);
  installRuntime({ ...getRuntime(), aesGcm });
  setEnvelopeAesGcm(envelope);
  return aesGcm;
}
