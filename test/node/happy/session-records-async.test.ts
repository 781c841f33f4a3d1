/**
 * A session's records sealed and opened in batches (what HappyClient.appendMessages and readMessages
 * call) over an asynchronous runtime AES-GCM (node:crypto driven as asynchronous: calls settle late and
 * out of order, as expo-crypto's native calls do): the same records and outcomes as the synchronous
 * functions, in order, with the key imported once per batch and every call of a batch in flight together;
 * an invalid message is refused by its index before anything is sealed. Over Node's synchronous runtime
 * the batch functions are the one-by-one functions.
 */
import { describe, expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { fromBase64, randomBytes, toBase64 } from '../../../src/core/bytes.js';
import { dataKey, legacyKey, type SessionKey, sealRaw } from '../../../src/core/envelope/index.js';
import { happyFileEvent } from '../../../src/core/happy/index.js';
import {
  openSessionRecord,
  openSessionRecords,
  type ServerMessage,
  sealSessionRecord,
  sealSessionRecords,
} from '../../../src/core/happy/session-records.js';
import { type SessionMessage, textMessage } from '../../../src/core/protocol/index.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { countedAsync } from '../../helpers/aes-gcm.js';
import { rejectionOf } from '../../helpers/errors.js';
import { withRuntime } from '../../helpers/installed.js';

const on = <T>(aesGcm: AsyncAesGcm, fn: () => Promise<T>): Promise<T> =>
  withRuntime({ ...nodeRuntime, aesGcm }, fn);

const SID = 'cmx6k89sd00016q7dnk5axjpq';
const messages = (): (SessionMessage | ReturnType<typeof happyFileEvent>)[] => [
  textMessage({ role: 'user', text: 'hello' }),
  happyFileEvent({
    role: 'user',
    ref: `sessions/${SID}/attachments/00000000-0000-4000-8000-000000000000.enc`,
    name: 'a.txt',
    size: 3,
  }),
  ...Array.from({ length: 30 }, (_, i) => textMessage({ role: 'agent', turn: 't1', text: `n${i}` })),
];

const asServer = (content: string, seq: number): ServerMessage => ({
  id: `rec${seq}`,
  seq,
  content: { t: 'encrypted', c: content },
  localId: `local${seq}`,
  createdAt: 1_700_000_000_000 + seq,
});

describe.each([
  ['dataKey', () => dataKey(randomBytes(32))],
  ['legacy', () => legacyKey(randomBytes(32))],
] as const)('a session’s records in batches (%s key)', (variant, makeKey) => {
  it('sealSessionRecords over an asynchronous AES-GCM: records the synchronous opener reads, in order, all in flight', async () => {
    const key: SessionKey = makeKey();
    const batch = messages();
    const { aes, calls } = countedAsync(nodeAesGcm);
    const sealed = await on(aes, () => sealSessionRecords(batch, key));
    expect(sealed.map((r) => r.localId)).toEqual(batch.map((m) => m.id));
    const opened = sealed.map((r, i) => openSessionRecord(asServer(r.content, i + 1), key));
    expect(opened.map((o) => o.kind)).toEqual(['message', 'legacy', ...batch.slice(2).map(() => 'message')]);
    expect(opened[0]).toMatchObject({ kind: 'message', message: batch[0] });
    expect(opened[1]).toMatchObject({ kind: 'legacy', record: { role: 'session', content: batch[1] } });
    if (variant === 'dataKey') {
      // One key import for the batch, every record's seal in flight together.
      expect(calls.imports).toBe(1);
      expect(calls.seal).toBe(batch.length);
      expect(calls.maxInFlight).toBe(batch.length);
    } else {
      // A legacy key is secretbox (tweetnacl): the AES-GCM is not called.
      expect(calls.imports + calls.seal).toBe(0);
    }
  });

  it('openSessionRecords over an asynchronous AES-GCM gives what openSessionRecord gives, in order', async () => {
    const key: SessionKey = makeKey();
    const raws = sealSessionRecordsSync(messages(), key).map((r, i) => asServer(r.content, i + 1));
    // Damaged, foreign, not encrypted, not base64, not a v2 message nor a legacy record.
    const damaged = fromBase64((raws[3]!.content as { c: string }).c);
    damaged[damaged.length - 1]! ^= 1;
    raws[3] = asServer(toBase64(damaged), 4);
    raws[4] = asServer(sealRaw({ role: 'user', content: 'x' }, makeKey()).c, 5);
    raws[5] = { ...asServer('', 6), content: { t: 'plain', text: 'hi' } };
    raws[6] = asServer('!!!', 7);
    raws[7] = asServer(sealRaw({ hello: 'world' }, key).c, 8);
    const expected = raws.map((raw) => openSessionRecord(raw, key));
    expect(expected.filter((o) => o.kind === 'unreadable')).toHaveLength(5);
    const { aes, calls } = countedAsync(nodeAesGcm);
    const opened = await on(aes, () => openSessionRecords(raws, key));
    expect(opened).toEqual(expected);
    if (variant === 'dataKey') {
      expect(calls.imports).toBe(1);
      expect(calls.maxInFlight).toBeGreaterThan(16);
    }
  });
});

/** The synchronous one-by-one sealing, as the reference. */
function sealSessionRecordsSync(batch: ReturnType<typeof messages>, key: SessionKey) {
  return batch.map((m) => sealSessionRecord(m, key));
}

describe('batch sealing refuses before it seals', () => {
  it('an invalid message is ERR_SCHEMA naming its index, with no cipher call', async () => {
    const batch = messages();
    batch[7] = { ...batch[7], type: 'nope' } as never;
    const { aes, calls } = countedAsync(nodeAesGcm);
    const error = await on(aes, () => rejectionOf(sealSessionRecords(batch, dataKey(randomBytes(32)))));
    expect(error.code).toBe('ERR_SCHEMA');
    expect(error.message).toMatch(/^message 7 of 32: /);
    expect(calls.seal).toBe(0);
  });

  it('over Node’s synchronous runtime the batch functions are the one-by-one functions', async () => {
    const key = dataKey(randomBytes(32));
    const batch = messages();
    const sealed = await sealSessionRecords(batch, key);
    const raws = sealed.map((r, i) => asServer(r.content, i + 1));
    expect(await openSessionRecords(raws, key)).toEqual(raws.map((raw) => openSessionRecord(raw, key)));
    const error = await rejectionOf(sealSessionRecords([batch[0]!, { type: 'x' } as never], key));
    expect(error.message).toMatch(/^message 1 of 2: /);
  });
});
