/**
 * Envelope seal/open of typical 1 KiB and 64 KiB v2 messages, both variants (legacy secretbox and
 * dataKey AES-256-GCM), in messages per second, beside the raw cipher over the same JSON bytes
 * (node:crypto AES-256-GCM for dataKey, tweetnacl secretbox for legacy): the difference is our JSON,
 * base64, schema validation and layout.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { getRuntime, type SessionMessage, textMessage } from 'happy-media';
import {
  dataKey,
  legacyKey,
  openMessage,
  openMessages,
  type SessionKey,
  sealMessage,
  sealMessages,
} from 'happy-media/envelope';
// The Node entry installs the node:crypto AES-GCM fast path for the dataKey variant: measure what Node callers get.
import { nodeAesGcm } from 'happy-media/node';
import nacl from 'tweetnacl';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { KiB } from '../harness/data.js';
import { opsPerSecondInterleaved, timeInterleaved } from '../harness/measure.js';
import { summarize } from '../harness/stats.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,\n';

/** A user text message whose JSON is about `targetBytes` long. */
function messageOfSize(targetBytes: number): { message: SessionMessage; json: Uint8Array } {
  const base = JSON.stringify(textMessage({ role: 'user', text: '' })).length;
  const n = Math.max(1, targetBytes - base - 16);
  let text = '';
  const rnd = randomBytes(n);
  for (let i = 0; i < n; i++) text += LETTERS[rnd[i]! % LETTERS.length];
  const message = textMessage({ role: 'user', text });
  return { message, json: new TextEncoder().encode(JSON.stringify(message)) };
}

/**
 * The dataKey format's own floor: what any writer of this envelope pays besides our code (JSON, UTF-8,
 * the cipher, base64), every step a native one. {@link formatFloorOpen} is the reader's mirror image.
 */
function formatFloorSeal(message: SessionMessage, secret: Uint8Array): { t: 'encrypted'; c: string } {
  const bytes = Buffer.from(JSON.stringify(message), 'utf8');
  const nonce = floorNonce();
  const cipher = createCipheriv('aes-256-gcm', secret, nonce);
  const record = Buffer.allocUnsafe(1 + 12 + bytes.length + 16);
  record[0] = 0;
  nonce.copy(record, 1);
  cipher.update(bytes).copy(record, 13);
  cipher.final();
  cipher.getAuthTag().copy(record, 13 + bytes.length);
  return { t: 'encrypted', c: record.toString('base64') };
}

/** Nonces cut from one pre-drawn random buffer (as ours are: one `randomBytes` per nonce costs ~2 µs). */
const floorNonces = { pool: randomBytes(12 * 4096), at: 0 };
function floorNonce(): Buffer {
  if (floorNonces.at + 12 > floorNonces.pool.length) {
    floorNonces.pool = randomBytes(12 * 4096);
    floorNonces.at = 0;
  }
  floorNonces.at += 12;
  return floorNonces.pool.subarray(floorNonces.at - 12, floorNonces.at);
}

/** Opens a dataKey envelope with native steps only (see {@link formatFloorSeal}). */
function formatFloorOpen(envelope: { c: string }, secret: Uint8Array): unknown {
  const record = Buffer.from(envelope.c, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secret, record.subarray(1, 13));
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(13, record.length - 16)), decipher.final()]);
  return JSON.parse(plain.toString('utf8'));
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  if (getRuntime().aesGcm !== nodeAesGcm) throw new Error('the Node entry did not install its AES-GCM');
  rec.check('node:crypto AES-GCM fast path installed (Node entry)');
  const plan = ctx.quick ? { warmup: 0, runs: 3 } : { warmup: 1, runs: 7 };
  const batchMs = ctx.quick ? 80 : 200;
  const secret = new Uint8Array(randomBytes(32));
  for (const size of [KiB, 64 * KiB]) {
    const { message, json } = messageOfSize(size);
    const tag = `${Math.round(json.length / KiB)} KiB`;
    for (const variant of ['datakey', 'legacy'] as const) {
      const key: SessionKey = variant === 'legacy' ? legacyKey(secret) : dataKey(secret);
      const sealed = sealMessage(message, key);
      if (!isDeepStrictEqual(openMessage(sealed, key), message)) {
        throw new Error(`${variant}: openMessage(sealMessage(m)) is not m`);
      }
      if (sealed.t !== 'encrypted' || typeof sealed.c !== 'string')
        throw new Error(`${variant}: not an envelope`);
      rec.check(`${variant} ${tag}: open(seal(m)) deep-equals m; envelope is { t: 'encrypted', c }`);
      // The raw cipher over the same JSON bytes, one fresh nonce per message as the envelope does.
      let rawSeal: () => unknown;
      let rawOpen: () => unknown;
      let rawLabel: string;
      if (variant === 'datakey') {
        const iv = randomBytes(12);
        const c = createCipheriv('aes-256-gcm', secret, iv);
        const ct = Buffer.concat([c.update(json), c.final()]);
        const tagBytes = c.getAuthTag();
        rawLabel = 'node:crypto AES-256-GCM';
        rawSeal = () => {
          const cipher = createCipheriv('aes-256-gcm', secret, randomBytes(12));
          return [cipher.update(json), cipher.final(), cipher.getAuthTag()];
        };
        rawOpen = () => {
          const d = createDecipheriv('aes-256-gcm', secret, iv);
          d.setAuthTag(tagBytes);
          return [d.update(ct), d.final()];
        };
      } else {
        const nonce = new Uint8Array(randomBytes(24));
        const boxed = nacl.secretbox(json, nonce, secret);
        rawLabel = 'tweetnacl secretbox';
        rawSeal = () => nacl.secretbox(json, nacl.randomBytes(24), secret);
        rawOpen = () => {
          if (!nacl.secretbox.open(boxed, nonce, secret)) throw new Error('secretbox reference failed');
        };
      }
      const formatSeal = () => formatFloorSeal(message, secret);
      const formatOpen = () => formatFloorOpen(sealed, secret);
      const withFloor = variant === 'datakey';
      if (withFloor) {
        if (
          !isDeepStrictEqual(formatOpen(), message) ||
          !isDeepStrictEqual(openMessage(formatSeal(), key), message)
        ) {
          throw new Error('the format-floor reference does not read or write the dataKey envelope');
        }
        rec.check(`${variant} ${tag}: the format-floor reference opens ours and ours opens its envelopes`);
      }
      // Ours and the raw cipher, timed interleaved so the machine's load hits both alike.
      const [sealRate, openRate, refSealRate, refOpenRate, floorSealRate, floorOpenRate] =
        await opsPerSecondInterleaved(
          [
            () => sealMessage(message, key),
            () => openMessage(sealed, key),
            rawSeal,
            rawOpen,
            ...(withFloor ? [formatSeal, formatOpen] : []),
          ],
          plan,
          batchMs,
        );
      const add = (id: string, label: string, rates: number[] | undefined, reference = false) =>
        rec.add({ id, suite: 'envelope', label, unit: 'msg/s', reference, summary: summarize(rates!) });
      const seal = add(`envelope.seal.${variant}.${size}`, `seal ${variant} ${tag}`, sealRate);
      const open = add(`envelope.open.${variant}.${size}`, `open ${variant} ${tag}`, openRate);
      const refSeal = add(
        `ref.envelope.seal.${variant}.${size}`,
        `${rawLabel} seal ${tag} (raw)`,
        refSealRate,
        true,
      );
      const refOpen = add(
        `ref.envelope.open.${variant}.${size}`,
        `${rawLabel} open ${tag} (raw)`,
        refOpenRate,
        true,
      );
      rec.compare(seal, refSeal);
      rec.compare(open, refOpen);
      if (withFloor) {
        rec.compare(
          seal,
          add(
            `ref.envelope.format-seal.${variant}.${size}`,
            `JSON.stringify + UTF-8 + AES-256-GCM + base64 ${tag} (the format's floor)`,
            floorSealRate,
            true,
          ),
        );
        rec.compare(
          open,
          add(
            `ref.envelope.format-open.${variant}.${size}`,
            `base64 + AES-256-GCM + UTF-8 + JSON.parse ${tag} (the format's floor)`,
            floorOpenRate,
            true,
          ),
        );
      }
    }
  }
  await transcript(ctx, rec, secret, plan);
}

/**
 * A transcript: sealMessages / openMessages over N messages of mixed sizes (100 B to 2 KiB of text, dataKey)
 * in one call, in messages per second, beside node:crypto AES-256-GCM sealing/opening the same N JSON
 * plaintexts (a fresh cipher and nonce each): what a relay or an app pays to open a session's history.
 */
async function transcript(
  ctx: BenchContext,
  rec: SuiteRecorder,
  secret: Uint8Array,
  plan: { warmup: number; runs: number },
): Promise<void> {
  const count = ctx.quick ? 2000 : 10_000;
  const key = dataKey(secret);
  const messages = Array.from({ length: count }, (_, i) => messageOfSize(100 + ((i * 7919) % 1948)));
  const envelopes = sealMessages(
    messages.map((m) => m.message),
    key,
  );
  const opened = openMessages(envelopes, key);
  if (!opened.every((o, i) => o.ok && isDeepStrictEqual(o.message, messages[i]!.message))) {
    throw new Error('openMessages(sealMessages(transcript)) is not the transcript');
  }
  rec.check(`transcript of ${count} messages: openMessages(sealMessages(ms)) deep-equals ms, every one ok`);
  const raw = messages.map(({ json }) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', secret, iv);
    const ct = Buffer.concat([cipher.update(json), cipher.final()]);
    return { iv, ct, tag: cipher.getAuthTag() };
  });
  if (!isDeepStrictEqual(formatFloorOpen(envelopes[0]!, secret), messages[0]!.message)) {
    throw new Error('the format-floor reference does not open the transcript');
  }
  const [sealMs, openMs, refSealMs, refOpenMs, floorSealMs, floorOpenMs] = await timeInterleaved(
    [
      () =>
        sealMessages(
          messages.map((m) => m.message),
          key,
        ),
      () => openMessages(envelopes, key),
      () => {
        for (const { json } of messages) {
          const cipher = createCipheriv('aes-256-gcm', secret, randomBytes(12));
          cipher.update(json);
          cipher.final();
          cipher.getAuthTag();
        }
      },
      () => {
        for (const { iv, ct, tag } of raw) {
          const d = createDecipheriv('aes-256-gcm', secret, iv);
          d.setAuthTag(tag);
          d.update(ct);
          d.final();
        }
      },
      () => {
        for (const { message } of messages) formatFloorSeal(message, secret);
      },
      () => {
        for (const envelope of envelopes) formatFloorOpen(envelope, secret);
      },
    ],
    plan,
  );
  const rate = (ms: number[]) => summarize(ms.map((m) => count / (m / 1000)));
  const label = `${count} messages (100 B–2 KiB)`;
  const add = (id: string, text: string, ms: number[] | undefined, reference = false) =>
    rec.add({ id, suite: 'envelope', label: text, unit: 'msg/s', reference, summary: rate(ms!) });
  const seal = add('envelope.transcript.seal', `sealMessages, ${label}`, sealMs);
  const open = add('envelope.transcript.open', `openMessages, ${label}`, openMs);
  rec.compare(
    seal,
    add('ref.envelope.transcript.seal', `node:crypto AES-256-GCM seal, ${label} (raw)`, refSealMs, true),
  );
  rec.compare(
    open,
    add('ref.envelope.transcript.open', `node:crypto AES-256-GCM open, ${label} (raw)`, refOpenMs, true),
  );
  rec.compare(
    seal,
    add('ref.envelope.transcript.format-seal', `the format's floor, seal, ${label}`, floorSealMs, true),
  );
  rec.compare(
    open,
    add('ref.envelope.transcript.format-open', `the format's floor, open, ${label}`, floorOpenMs, true),
  );
}

/** The envelope suite. */
export const envelopeSuite: Suite = {
  name: 'envelope',
  description:
    'seal/open of 1 KiB and 64 KiB messages, both variants, and a 10,000-message transcript, vs the raw cipher over the same bytes',
  run,
};
