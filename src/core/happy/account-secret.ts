/**
 * The account secret of a Happy account: 32 random bytes from which everything else is derived (the
 * Ed25519 key that signs in, the content key pair that opens session data keys, the master blob key).
 * Happy's app shows it for backup and takes it back in these text forms, and so do we:
 *
 * | form | example | where it comes from |
 * |---|---|---|
 * | backup | `ABCDE-FGHIJ-…` (52 base32 characters in groups of 5) | the app's Settings → Account, "secret key" |
 * | base64url | 43 characters, `-` and `_`, no padding | the app's stored credentials, its restore screen |
 * | base64 | 44 characters ending in `=` | Happy CLI's `~/.happy/access.key` (`"secret"`) |
 *
 * The backup form is read as the app reads it (`normalizeSecretKey` in
 * `happy-app/sources/auth/secretKeyBackup.ts`): case-insensitive, `0 1 8 9` read as `O I B G`, every
 * other character that is not base32 (dashes, spaces, line breaks) ignored. Unlike the app, a 43-character
 * base64url secret that contains a `-` is read as base64url (the app takes any `-` for the backup form
 * and then refuses the key); no text means two different secrets under the two readings.
 *
 * @module
 */
import { base32nopad, base64nopad, base64urlnopad } from '@scure/base';
import { assertBytes, randomBytes } from '../bytes.js';
import { KEY_BYTES } from '../envelope/layout.js';
import { FormatError } from '../errors.js';

/** Base32 characters of a 32-byte secret without padding (256 bits / 5, rounded up). */
const BACKUP_CHARACTERS = 52;
const BASE64URL = /^[A-Za-z0-9_-]{43}={0,1}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Reads an account secret in any form Happy's app shows or takes (see the module's table) and returns
 * its 32 bytes. Surrounding whitespace is ignored.
 *
 * @throws {FormatError} `ERR_FORMAT` when the text is none of the forms or does not hold exactly 32
 *   bytes; the message gives lengths, never the text.
 * @example
 * ```ts
 * const secret = parseAccountSecret('ABCDE-FGHIJ-KLMNO-PQRST-UVWXY-Z2345-67ABC-DEFGH-IJKLM-NOPQR-ST');
 * ```
 */
export function parseAccountSecret(text: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new FormatError('expected the account secret as text but received no string');
  }
  const trimmed = text.trim();
  try {
    if (BASE64URL.test(trimmed)) return base64urlnopad.decode(trimmed.replace(/=$/, ''));
    if (BASE64.test(trimmed)) return base64nopad.decode(trimmed.slice(0, -1));
  } catch {
    // Only non-zero padding bits get here: the patterns fixed the alphabet and the length. The decoder's
    // error is not kept: it is about a secret's text.
    throw new FormatError(
      'expected base64 of a 32-byte account secret but its last character carries bits a 32-byte value cannot have',
    );
  }
  const normalized = trimmed
    .toUpperCase()
    .replace(/0/g, 'O')
    .replace(/1/g, 'I')
    .replace(/8/g, 'B')
    .replace(/9/g, 'G')
    .replace(/[^A-Z2-7]/g, '');
  if (normalized.length !== BACKUP_CHARACTERS) {
    throw new FormatError(
      `expected the account secret as Happy's app shows it (the backup form XXXXX-XXXXX-…: ${BACKUP_CHARACTERS} letters and digits in groups of 5) or as base64url/base64 of ${KEY_BYTES} bytes, but the text has ${trimmed.length} characters and ${normalized.length} backup characters`,
    );
  }
  try {
    return base32nopad.decode(normalized);
  } catch {
    throw new FormatError(
      'expected the backup form of a 32-byte account secret but its last group carries bits a 32-byte value cannot have (check its last characters)',
    );
  }
}

/**
 * The backup form of an account secret, as Happy's app shows it (`formatSecretKeyForBackup`): base32
 * without padding in dash-separated groups of 5 characters (11 groups). {@link parseAccountSecret} and
 * the app's restore screen both read it back.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `secret` is 32 bytes.
 * @example
 * ```ts
 * formatAccountSecret(secret); // 'AAAQE-AYEAU-DAOCA-JBIFQ-YDIOB-4IBCE-QTCQK-RMFYY-DENBW-HA5DY-PQ'
 * ```
 */
export function formatAccountSecret(secret: Uint8Array): string {
  const text = base32nopad.encode(assertBytes(secret, 'secret', KEY_BYTES));
  return text.match(/.{1,5}/g)?.join('-') ?? '';
}

/**
 * A fresh account secret (32 random bytes): signing in with it makes a new account on any Happy server.
 *
 * @example
 * ```ts
 * const secret = createAccountSecret();
 * const client = await HappyClient.connect({ url, credentials: { kind: 'secret', secret } });
 * ```
 */
export function createAccountSecret(): Uint8Array {
  return randomBytes(KEY_BYTES);
}
