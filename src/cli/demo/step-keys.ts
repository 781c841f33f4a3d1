/**
 * Demo step 3: the session's keys from the key tree (master → content key pair → boxed data key → blob
 * key and seal key).
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  boxDataKey,
  contentKeyPair,
  createDataKey,
  dataKey,
  masterBlobKey,
  openDataKeyBundle,
  sessionBlobKey,
} from '../../envelope.js';
import type { DemoKeys } from './demo-state.js';
import type { DemoRecorder } from './report.js';

/** Derives a fresh session's keys and checks the tree holds together; `undefined` when the step failed. */
export async function deriveKeys(rec: DemoRecorder): Promise<DemoKeys | undefined> {
  return rec.step('Keys from the key tree', async (s) => {
    const master = new Uint8Array(randomBytes(32));
    const account = contentKeyPair(master);
    const sessionDataKey = createDataKey();
    const bundle = boxDataKey(sessionDataKey, account.publicKey);
    const blobKey = sessionBlobKey(sessionDataKey);
    // Key material is described, never printed: the demo's output may be pasted anywhere.
    s.info('master secret: 32 random bytes (never leaves this process; not printed)');
    s.info(
      `content key pair from the master; session data key boxed for its public key: ${bundle.length}-byte bundle`,
    );
    s.info(
      'session blob key = sessionBlobKey(dataKey); messages sealed with the dataKey variant (AES-256-GCM)',
    );
    s.check(
      'the data-key bundle opens with the content secret key to the same data key',
      isDeepStrictEqual(openDataKeyBundle(bundle, account.secretKey), sessionDataKey),
    );
    s.check(
      'the session blob key is deterministic and distinct from the master blob key',
      isDeepStrictEqual(sessionBlobKey(sessionDataKey), blobKey) &&
        !isDeepStrictEqual(masterBlobKey(master), blobKey),
    );
    return { blobKey, sealKey: dataKey(sessionDataKey) };
  });
}
