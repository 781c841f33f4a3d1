/**
 * The `[ nonce 24 | secretbox(plaintext) ]` record shared by legacy envelopes and v1 attachment blobs.
 *
 * Internal: the public names are {@link encryptLegacy}/{@link decryptLegacy} and
 * {@link encryptV1Blob}/{@link decryptV1Blob}, which differ only in which key they take.
 *
 * @module
 */
import { assertBytes } from '../bytes.js';
import { FormatError } from '../errors.js';
import { secretboxOpen, secretboxSeal } from './_nacl.js';
import { KEY_BYTES, LEGACY_OVERHEAD_BYTES, SECRETBOX_NONCE_BYTES } from './layout.js';
import { randomNonce } from './nonce.js';

/** Seals `plaintext` under `key` with `nonce` (random when omitted). */
export function sealSecretboxRecord(
  plaintext: Uint8Array,
  key: Uint8Array,
  keyName: string,
  nonce: Uint8Array | undefined,
): Uint8Array {
  assertBytes(plaintext, 'plaintext');
  assertBytes(key, keyName, KEY_BYTES);
  const usedNonce =
    nonce === undefined
      ? randomNonce(SECRETBOX_NONCE_BYTES)
      : assertBytes(nonce, 'nonce', SECRETBOX_NONCE_BYTES);
  const box = secretboxSeal(plaintext, usedNonce, key);
  const out = new Uint8Array(SECRETBOX_NONCE_BYTES + box.length);
  out.set(usedNonce, 0);
  out.set(box, SECRETBOX_NONCE_BYTES);
  return out;
}

/**
 * Opens a record; nothing is returned unless it authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than nonce + tag (40 bytes).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it does not authenticate under `key`.
 */
export function openSecretboxRecord(
  record: Uint8Array,
  key: Uint8Array,
  keyName: string,
  recordName: string,
  layoutName: string,
): Uint8Array {
  assertBytes(record, recordName);
  assertBytes(key, keyName, KEY_BYTES);
  if (record.length < LEGACY_OVERHEAD_BYTES) {
    throw new FormatError(
      `expected at least ${LEGACY_OVERHEAD_BYTES} bytes for \`${recordName}\` (${layoutName}: nonce 24 | tag 16 | ciphertext) but received ${record.length} bytes`,
    );
  }
  return secretboxOpen(
    record.subarray(SECRETBOX_NONCE_BYTES),
    record.subarray(0, SECRETBOX_NONCE_BYTES),
    key,
  );
}
