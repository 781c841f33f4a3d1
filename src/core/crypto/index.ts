/**
 * Public surface of the native-cipher seam: backends over any module with node:crypto's Cipher API
 * (node:crypto, react-native-quick-crypto).
 *
 * @module
 */
export type { CipherModule, GcmCipherLike, GcmDecipherLike } from './cipher-module.js';
export { installCipherModule } from './install-cipher-module.js';
