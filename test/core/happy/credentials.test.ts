/**
 * The account secret in every form Happy's app shows or takes, and the credentials files of Happy's CLI
 * and app. The backup vector is RFC 4648 base32 of bytes 00..1f (the app's alphabet and bit order),
 * grouped by 5 as the app's Settings → Account shows it.
 */

import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../src/core/bytes.js';
import { contentKeyPair } from '../../../src/core/envelope/index.js';
import {
  accountKeys,
  createAccountSecret,
  formatAccountSecret,
  openSessionKeys,
  parseAccountSecret,
  parseHappyCredentials,
} from '../../../src/core/happy/index.js';
import { signInChallenge } from '../../../src/core/happy/sign-in.js';
import { codeOf } from '../../helpers/errors.js';

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i);
const BACKUP = 'AAAQE-AYEAU-DAOCA-JBIFQ-YDIOB-4IBCE-QTCQK-RMFYY-DENBW-HA5DY-PQ';
const BASE64URL = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const BASE64 = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';

describe('account secret forms', () => {
  it('formats the backup form as the app shows it: 11 groups of base32', () => {
    expect(formatAccountSecret(SECRET)).toBe(BACKUP);
    expect(formatAccountSecret(new Uint8Array(32).fill(255))).toMatch(/^([A-Z2-7]{5}-){10}[A-Z2-7]{2}$/);
  });

  it('reads the backup form as the app reads it: any case, 0 1 8 9 as O I B G, separators ignored', () => {
    expect(parseAccountSecret(BACKUP)).toEqual(SECRET);
    expect(parseAccountSecret(BACKUP.toLowerCase())).toEqual(SECRET);
    expect(parseAccountSecret(BACKUP.replace(/-/g, ' - '))).toEqual(SECRET);
    expect(parseAccountSecret(BACKUP.replace(/-/g, ''))).toEqual(SECRET);
    expect(parseAccountSecret(`\n  ${BACKUP}\n`)).toEqual(SECRET);
    expect(parseAccountSecret(BACKUP.replace(/O/g, '0').replace(/I/g, '1').replace(/B/g, '8'))).toEqual(
      SECRET,
    );
  });

  it('reads base64url (the app stores it) and padded base64 (Happy CLI writes it)', () => {
    expect(parseAccountSecret(BASE64URL)).toEqual(SECRET);
    expect(parseAccountSecret(`${BASE64URL}=`)).toEqual(SECRET);
    expect(parseAccountSecret(BASE64)).toEqual(SECRET);
    // A base64url secret with "-" and "_": the app would take the "-" for the backup form and refuse it.
    const dashed = new Uint8Array(32).fill(0xfb);
    expect(parseAccountSecret(Buffer.from(dashed).toString('base64url'))).toEqual(dashed);
    expect(parseAccountSecret(Buffer.from(dashed).toString('base64'))).toEqual(dashed);
  });

  it('round-trips random secrets through every form', () => {
    for (let i = 0; i < 50; i++) {
      const secret = createAccountSecret();
      expect(secret).toHaveLength(32);
      expect(parseAccountSecret(formatAccountSecret(secret))).toEqual(secret);
      expect(parseAccountSecret(Buffer.from(secret).toString('base64url'))).toEqual(secret);
      expect(parseAccountSecret(Buffer.from(secret).toString('base64'))).toEqual(secret);
    }
  });

  it('refuses what is none of the forms, with ERR_FORMAT and no secret in the message', () => {
    const bad = [
      '',
      'AAAAA-BBBBB',
      `${BACKUP}-AAAAA`,
      BASE64URL.slice(0, 42),
      `${BASE64URL}AA`,
      'not a secret at all!',
      `${BACKUP.slice(0, -1)}R`, // non-zero padding bits in the last character
    ];
    for (const text of bad)
      expect(
        codeOf(() => parseAccountSecret(text)),
        JSON.stringify(text),
      ).toBe('ERR_FORMAT');
    try {
      parseAccountSecret(`${BACKUP}-AAAAA`);
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('AAAQE');
    }
  });

  it('refuses a secret that is not 32 bytes when formatting', () => {
    expect(codeOf(() => formatAccountSecret(new Uint8Array(31)))).toBe('ERR_INVALID_ARGUMENT');
  });
});

describe('credentials files', () => {
  const publicKey = contentKeyPair(SECRET).publicKey;

  it("reads Happy CLI's access.key with the secret (standard base64), ignoring its token", () => {
    const text = JSON.stringify({ secret: BASE64, token: 'tok' }, null, 2);
    expect(parseHappyCredentials(text)).toEqual({ kind: 'secret', secret: SECRET });
  });

  it("reads the app's stored credentials (base64url secret)", () => {
    expect(parseHappyCredentials(JSON.stringify({ token: 't', secret: BASE64URL }))).toEqual({
      kind: 'secret',
      secret: SECRET,
    });
  });

  it("reads Happy CLI's access.key after linking by QR code: content public key and token", () => {
    const text = JSON.stringify({
      encryption: { publicKey: toBase64(publicKey), machineKey: toBase64(new Uint8Array(32)) },
      token: 'tok',
    });
    expect(parseHappyCredentials(text)).toEqual({
      kind: 'content-public-key',
      contentPublicKey: publicKey,
      token: 'tok',
    });
  });

  it('reads a bare secret in any form', () => {
    for (const text of [BACKUP, BASE64URL, BASE64, `${BACKUP}\n`]) {
      expect(parseHappyCredentials(text)).toEqual({ kind: 'secret', secret: SECRET });
    }
  });

  it('refuses malformed credentials with ERR_FORMAT, never quoting them', () => {
    const bad = [
      '{"secret": "short"}',
      '{"token": "t"}',
      '{"encryption": {"publicKey": "AAAA"}, "token": "t"}',
      `{"encryption": {"publicKey": "${toBase64(publicKey)}"}}`,
      '{"secret": ',
      '[]',
      'x'.repeat(70_000),
    ];
    for (const text of bad)
      expect(
        codeOf(() => parseHappyCredentials(text)),
        text.slice(0, 40),
      ).toBe('ERR_FORMAT');
    try {
      parseHappyCredentials(`{"secret": "${BASE64}", `);
    } catch (error) {
      expect((error as Error).message).not.toContain(BASE64.slice(0, 10));
      expect((error as Error).cause).toBeUndefined();
    }
  });
});

describe('sign-in challenge', () => {
  it('signs 32 random bytes with the Ed25519 key whose seed is the secret, as the app and CLI do', () => {
    const { publicKey, challenge, signature } = signInChallenge(SECRET);
    expect(publicKey).toEqual(nacl.sign.keyPair.fromSeed(SECRET).publicKey);
    expect(challenge).toHaveLength(32);
    expect(nacl.sign.detached.verify(challenge, signature, publicKey)).toBe(true);
    expect(signInChallenge(SECRET).challenge).not.toEqual(challenge);
  });
});

describe('session keys', () => {
  it('a legacy session (no bundle) opens with the secret only, a datakey session with the content key pair', () => {
    const keys = accountKeys({ kind: 'secret', secret: SECRET });
    const legacy = openSessionKeys(null, keys);
    expect(legacy.variant).toBe('legacy');
    // Golden values of ../shared/happy-formats.md for master secret 00..1f.
    expect(Buffer.from(legacy.blobKey).toString('hex').toUpperCase()).toBe(
      'C1C73CA3C5C5E2D17A27B07881BB0BD5B2D373D68DB37C53D8D270D1D96C6B52',
    );
    const bundle =
      'AEk+gvx0RkpZJogXYj0gU8XrjizEqYi0/uF57GsBDVMdoKGio6SlpqeoqaqrrK2ur7CxsrO0tba3M5UgjE0b3+ZXCUlt+pzQmf5H2dGKz61HO5XkXeAhYkcy+PzdTdu+keJ1Z5n23rYu';
    const opened = openSessionKeys(bundle, keys);
    expect(opened.variant).toBe('datakey');
    expect(opened.key).toEqual({
      variant: 'datakey',
      key: Uint8Array.from({ length: 32 }, (_, i) => 0x20 + i),
    });
    expect(Buffer.from(opened.blobKey).toString('hex').toUpperCase()).toBe(
      '5E9B02B62BD6E6C15E79D03648B16AF5AD3A40E164BF45269902448B8C8A895C',
    );
  });

  it('the content public key alone opens no session', () => {
    const keys = accountKeys({
      kind: 'content-public-key',
      contentPublicKey: contentKeyPair(SECRET).publicKey,
      token: 't',
    });
    expect(codeOf(() => openSessionKeys(null, keys))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => openSessionKeys(toBase64(new Uint8Array(105)), keys))).toBe('ERR_INVALID_ARGUMENT');
  });

  it('a bundle of another account fails as a decryption failure; a malformed one as a format error', () => {
    const keys = accountKeys({ kind: 'secret', secret: new Uint8Array(32).fill(7) });
    const bundle =
      'AEk+gvx0RkpZJogXYj0gU8XrjizEqYi0/uF57GsBDVMdoKGio6SlpqeoqaqrrK2ur7CxsrO0tba3M5UgjE0b3+ZXCUlt+pzQmf5H2dGKz61HO5XkXeAhYkcy+PzdTdu+keJ1Z5n23rYu';
    expect(codeOf(() => openSessionKeys(bundle, keys))).toBe('ERR_DECRYPTION_FAILED');
    expect(codeOf(() => openSessionKeys('not base64!', keys))).toBe('ERR_FORMAT');
  });
});
