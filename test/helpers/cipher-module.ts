/**
 * A {@link CipherModule} that is not node:crypto itself: it delegates to node:crypto but hands back plain
 * `Uint8Array` copies (as react-native-quick-crypto hands back its own Buffer class) and counts calls, so
 * tests prove the Cipher-API AES-GCM works on any module with that API, not only on node:crypto.
 */
import * as nodeCrypto from 'node:crypto';
import type { CipherModule } from '../../src/core/aes-gcm/cipher-module.js';

/** The wrapped module and how often each entry point was called. */
export function foreignCipherModule(): { module: CipherModule; calls: { cipher: number; decipher: number } } {
  const calls = { cipher: 0, decipher: 0 };
  const plain = (b: Uint8Array) => new Uint8Array(b);
  const module: CipherModule = {
    createCipheriv(algorithm, key, iv, options) {
      calls.cipher++;
      const c = nodeCrypto.createCipheriv(algorithm, key, iv, options);
      return {
        update: (data) => plain(c.update(data)),
        final: () => plain(c.final()),
        getAuthTag: () => plain(c.getAuthTag()),
      };
    },
    createDecipheriv(algorithm, key, iv, options) {
      calls.decipher++;
      const d = nodeCrypto.createDecipheriv(algorithm, key, iv, options);
      return {
        setAuthTag: (tag) => d.setAuthTag(tag),
        update: (data) => plain(d.update(data)),
        final: () => plain(d.final()),
      };
    },
  };
  return { module, calls };
}
