/**
 * Blob encryption per AES-GCM implementation (node, webcrypto, noble) beside the limit in Node (node:crypto, one
 * AES-256-GCM cipher streaming over the same bytes) and Happy's current path (tweetnacl secretbox over
 * the whole blob), plus file-to-file peak memory of ours (streaming) and of the whole-blob secretbox.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nobleAesGcm, webCryptoAesGcm } from 'happy-media';
import {
  ciphertextSize,
  createDecryptStream,
  createEncryptStream,
  decryptBlob,
  encryptBlob,
  unboundBlobContext,
} from 'happy-media/blob';
import {
  decryptFile,
  decryptFileParallel,
  encryptFile,
  encryptFileParallel,
  nodeAesGcm,
} from 'happy-media/node';
import nacl from 'tweetnacl';
import { runChild } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { MiB, randomData, sha256, sha256File, writeRandomFile } from '../harness/data.js';
import type { Measurement } from '../harness/figures.js';
import { type RunPlan, timeInterleaved } from '../harness/measure.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

const SLICE = MiB;

/** The AES-GCM implementations measured, by the name their rows carry. */
const AES_GCM = { node: nodeAesGcm, webcrypto: webCryptoAesGcm, noble: nobleAesGcm } as const;
type AesGcmName = keyof typeof AES_GCM;

/** node:crypto, one AES-256-GCM cipher over the whole buffer, fed in 1 MiB slices (the limit). */
function nodeOneCipherEncrypt(
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
): { ct: Uint8Array; tag: Buffer } {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = new Uint8Array(data.length);
  let at = 0;
  for (let i = 0; i < data.length; i += SLICE) {
    const out = cipher.update(data.subarray(i, Math.min(data.length, i + SLICE)));
    ct.set(out, at);
    at += out.length;
  }
  cipher.final();
  return { ct, tag: cipher.getAuthTag() };
}

function nodeOneCipherDecrypt(ct: Uint8Array, tag: Buffer, key: Uint8Array, iv: Uint8Array): Uint8Array {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  const pt = new Uint8Array(ct.length);
  let at = 0;
  for (let i = 0; i < ct.length; i += SLICE) {
    const out = decipher.update(ct.subarray(i, Math.min(ct.length, i + SLICE)));
    pt.set(out, at);
    at += out.length;
  }
  decipher.final();
  return pt;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function mbps(
  rec: SuiteRecorder,
  m: Omit<Measurement, 'summary' | 'unit' | 'suite'> & { sizeBytes: number },
  ms: number[],
): Measurement {
  return rec.add({
    ...m,
    suite: 'blob',
    unit: 'MB/s',
    summary: summarize(ms.map((t) => megabytesPerSecond(m.sizeBytes, t))),
  });
}

/** One timed case of a size group. */
interface Case {
  id: string;
  label: string;
  series: string;
  reference: boolean;
  fn: () => unknown;
}

/** The two references over `data` (checked first): node:crypto one-cipher AES-GCM and tweetnacl secretbox. */
function referenceCases(rec: SuiteRecorder, data: Uint8Array, key: Uint8Array): Case[] {
  const size = data.length;
  const tag = formatBytes(size);
  const iv = randomBytes(12);
  const one = nodeOneCipherEncrypt(data, key, iv);
  if (!equal(nodeOneCipherDecrypt(one.ct, one.tag, key, iv), data)) {
    throw new Error('node:crypto reference did not round-trip');
  }
  const nonce = randomBytes(24);
  const boxed = nacl.secretbox(data, nonce, key);
  const opened = nacl.secretbox.open(boxed, nonce, key);
  if (!opened || !equal(opened, data)) throw new Error('tweetnacl reference did not round-trip');
  rec.check(`references round-trip at ${tag} (node:crypto one-cipher AES-256-GCM, tweetnacl secretbox)`);
  return [
    {
      id: `ref.node-gcm.encrypt.${size}`,
      label: `node:crypto one-cipher encrypt ${tag}`,
      series: 'node:crypto one-cipher AES-GCM encrypt',
      reference: true,
      fn: () => nodeOneCipherEncrypt(data, key, iv),
    },
    {
      id: `ref.node-gcm.decrypt.${size}`,
      label: `node:crypto one-cipher decrypt ${tag}`,
      series: 'node:crypto one-cipher AES-GCM decrypt',
      reference: true,
      fn: () => nodeOneCipherDecrypt(one.ct, one.tag, key, iv),
    },
    {
      id: `ref.secretbox.encrypt.${size}`,
      label: `tweetnacl secretbox whole blob ${tag}`,
      series: 'tweetnacl secretbox (Happy v1) encrypt',
      reference: true,
      fn: () => nacl.secretbox(data, nonce, key),
    },
    {
      id: `ref.secretbox.decrypt.${size}`,
      label: `tweetnacl secretbox.open whole blob ${tag}`,
      series: 'tweetnacl secretbox (Happy v1) decrypt',
      reference: true,
      fn: () => nacl.secretbox.open(boxed, nonce, key),
    },
  ];
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const size = ctx.quick ? 16 * MiB : 256 * MiB;
  const nobleSize = ctx.quick ? MiB : 16 * MiB;
  const plan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 1, runs: 5 };
  const key = new Uint8Array(randomBytes(32));
  const available = await crossCheckImplementations(ctx, rec, key);
  await wholeBuffers(rec, available, key, { size, nobleSize, plan });
  if (available.includes('node')) {
    const d = randomData(size);
    await streamingEncrypt(rec, d, key, plan);
    await streamingDecrypt(rec, d, key, plan);
    await fileToFileThreads(ctx, rec, key, d, plan.runs);
  }
  await fileToFileMemory(ctx, rec, key, size, ctx.quick ? 1 : plan.runs);
}

/**
 * The implementations that can encrypt here, checked before anything is timed: every one's ciphertext has
 * the announced size and opens with every one.
 */
async function crossCheckImplementations(
  ctx: BenchContext,
  rec: SuiteRecorder,
  key: Uint8Array,
): Promise<AesGcmName[]> {
  const sample = randomData(3 * 16384 + 77);
  const available: AesGcmName[] = [];
  const cts = new Map<AesGcmName, Uint8Array>();
  for (const b of ['node', 'webcrypto', 'noble'] as const) {
    try {
      cts.set(b, await encryptBlob(sample, key, { context: unboundBlobContext(), aesGcm: AES_GCM[b] }));
      available.push(b);
    } catch (error) {
      ctx.log(`  AES-GCM ${b} unavailable: ${(error as Error).message}`);
    }
  }
  if (available.length === 0) throw new Error('no AES-GCM implementation could encrypt');
  for (const [from, ct] of cts) {
    if (ct.length !== ciphertextSize(sample.length))
      throw new Error(`${from}: ciphertext size differs from ciphertextSize()`);
    for (const to of available) {
      if (!equal(await decryptBlob(ct, key, { context: unboundBlobContext(), aesGcm: AES_GCM[to] }), sample))
        throw new Error(`${from} → ${to} did not round-trip`);
    }
  }
  rec.check(
    `AES-GCM ${available.join(', ')}: ciphertext size = ciphertextSize(n); each decrypts every other's output to the original`,
  );
  return available;
}

/**
 * Whole-buffer encrypt and decrypt, one group per size (noble gets a smaller one): ours and the references
 * over the same bytes, timed interleaved (round-robin), so a busy neighbour slows every case of a round
 * alike instead of skewing one side of a ratio.
 */
async function wholeBuffers(
  rec: SuiteRecorder,
  available: readonly AesGcmName[],
  key: Uint8Array,
  { size, nobleSize, plan }: { size: number; nobleSize: number; plan: RunPlan },
): Promise<void> {
  const groups = new Map<number, AesGcmName[]>();
  for (const b of available) {
    const s = b === 'noble' ? nobleSize : size;
    groups.set(s, [...(groups.get(s) ?? []), b]);
  }
  for (const [s, group] of groups) {
    const d = randomData(s);
    const tag = formatBytes(s);
    const cases: Case[] = [];
    for (const b of group) {
      const ct = await encryptBlob(d, key, { context: unboundBlobContext(), aesGcm: AES_GCM[b] });
      if (!equal(await decryptBlob(ct, key, { context: unboundBlobContext(), aesGcm: AES_GCM[b] }), d))
        throw new Error(`${b}: ${tag} did not round-trip`);
      rec.check(`${b}: ${tag} round-trips`);
      cases.push(
        {
          id: `blob.encrypt.${b}`,
          label: `encrypt (${b}) ${tag}`,
          series: `blob encrypt (${b})`,
          reference: false,
          fn: () => encryptBlob(d, key, { context: unboundBlobContext(), aesGcm: AES_GCM[b] }),
        },
        {
          id: `blob.decrypt.${b}`,
          label: `decrypt (${b}) ${tag}`,
          series: `blob decrypt (${b})`,
          reference: false,
          fn: () => decryptBlob(ct, key, { context: unboundBlobContext(), aesGcm: AES_GCM[b] }),
        },
      );
    }
    cases.push(...referenceCases(rec, d, key));
    const times = await timeInterleaved(
      cases.map((c) => c.fn),
      plan,
    );
    const m = new Map<string, Measurement>();
    cases.forEach((c, i) => {
      const { fn: _fn, ...fields } = c;
      m.set(c.id, mbps(rec, { ...fields, sizeBytes: s }, times[i]!));
    });
    const ref = (kind: string) => m.get(`ref.${kind}.${s}`)!;
    for (const b of group) {
      const enc = m.get(`blob.encrypt.${b}`)!;
      const dec = m.get(`blob.decrypt.${b}`)!;
      if (b === 'noble') {
        // Pure JS beside pure JS: Happy's tweetnacl path is the fair reference.
        rec.compare(enc, ref('secretbox.encrypt'));
        rec.compare(dec, ref('secretbox.decrypt'));
        rec.compare(enc, ref('node-gcm.encrypt'));
      } else {
        rec.compare(enc, ref('node-gcm.encrypt'));
        rec.compare(dec, ref('node-gcm.decrypt'));
        rec.compare(enc, ref('secretbox.encrypt'));
        rec.compare(dec, ref('secretbox.decrypt'));
      }
    }
  }
}

/** A stream of `bytes` in 1 MiB slices, as a file or socket would feed it. */
function inSlices(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += SLICE)
        controller.enqueue(bytes.subarray(i, Math.min(bytes.length, i + SLICE)));
      controller.close();
    },
  });
}

/** A sink that only counts what it is given (into `counted.bytes`). */
function countingSink(counted: { bytes: number }): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write(chunk) {
      counted.bytes += chunk.length;
    },
  });
}

/**
 * Streaming encryption, output discarded: the cipher's own speed without allocating a whole output buffer
 * (at 256 MiB, the whole-buffer figures are dominated by faulting in the fresh output memory), beside one
 * node:crypto cipher over the same slices and the format's floor (a new cipher per 16 KiB chunk).
 */
async function streamingEncrypt(
  rec: SuiteRecorder,
  d: Uint8Array,
  key: Uint8Array,
  plan: RunPlan,
): Promise<void> {
  const size = d.length;
  const tag = formatBytes(size);
  const counted = { bytes: 0 };
  await inSlices(d)
    .pipeThrough(createEncryptStream(key, { context: unboundBlobContext(), aesGcm: nodeAesGcm }))
    .pipeTo(countingSink(counted));
  if (counted.bytes !== ciphertextSize(size)) throw new Error('streaming encrypt emitted the wrong size');
  rec.check(`node streaming encrypt of ${tag} emits exactly ciphertextSize(${size}) bytes`);
  // The format's floor in Node: a new node:crypto cipher per 16 KiB chunk (GCM cannot take a new nonce
  // on an existing cipher), output discarded: what any Cobblestone writer in Node pays, ours included.
  const chunkIv = randomBytes(12);
  const perChunkSeal = () => {
    for (let i = 0; i < d.length; i += 16384) {
      const cipher = createCipheriv('aes-256-gcm', key, chunkIv);
      cipher.update(d.subarray(i, Math.min(d.length, i + 16384)));
      cipher.final();
      cipher.getAuthTag();
    }
  };
  const [oursMs, refMs, perChunkMs] = await timeInterleaved(
    [
      () =>
        inSlices(d)
          .pipeThrough(createEncryptStream(key, { context: unboundBlobContext(), aesGcm: nodeAesGcm }))
          .pipeTo(countingSink(counted)),
      () => {
        const cipher = createCipheriv('aes-256-gcm', key, randomBytes(12));
        for (let i = 0; i < d.length; i += SLICE) cipher.update(d.subarray(i, Math.min(d.length, i + SLICE)));
        cipher.final();
        // The same output as ours: every ciphertext byte (returned by update, then dropped) and the tag.
        return cipher.getAuthTag();
      },
      perChunkSeal,
    ],
    plan,
  );
  const ours = mbps(
    rec,
    {
      id: 'blob.stream.encrypt.node',
      label: `createEncryptStream (node, { context: unboundBlobContext() }) ${tag}, output discarded`,
      sizeBytes: size,
      series: 'blob streaming encrypt (node)',
    },
    oursMs!,
  );
  const ref = mbps(
    rec,
    {
      id: `ref.node-gcm.stream.${size}`,
      label: `node:crypto one-cipher update ${tag}, output discarded`,
      sizeBytes: size,
      series: 'node:crypto one-cipher, output discarded',
      reference: true,
    },
    refMs!,
  );
  rec.compare(ours, ref);
  rec.compare(
    ours,
    mbps(
      rec,
      {
        id: `ref.node-gcm.per-chunk.${size}`,
        label: `node:crypto new cipher per 16 KiB chunk ${tag}, output discarded (the format floor)`,
        sizeBytes: size,
        series: 'node:crypto cipher per chunk, output discarded',
        reference: true,
      },
      perChunkMs!,
    ),
  );
}

/**
 * The same for decryption: createDecryptStream beside one decipher's update and a new decipher per 16 KiB
 * chunk, output discarded.
 */
async function streamingDecrypt(
  rec: SuiteRecorder,
  d: Uint8Array,
  key: Uint8Array,
  plan: RunPlan,
): Promise<void> {
  const size = d.length;
  const tag = formatBytes(size);
  const counted = { bytes: 0 };
  const sealed = await encryptBlob(d, key, { context: unboundBlobContext(), aesGcm: nodeAesGcm });
  await inSlices(sealed)
    .pipeThrough(createDecryptStream(key, { context: unboundBlobContext(), aesGcm: nodeAesGcm }))
    .pipeTo(countingSink(counted));
  if (counted.bytes !== size) throw new Error('streaming decrypt emitted the wrong size');
  rec.check(`node streaming decrypt of ${tag} emits exactly the ${size} plaintext bytes`);
  const iv = randomBytes(12);
  const one = nodeOneCipherEncrypt(d, key, iv);
  // Per-chunk floor for decryption: each 16 KiB chunk sealed on its own beforehand, then opened with a
  // new decipher each (tag checked), output discarded.
  const chunkIv = randomBytes(12);
  const perChunkSealed: { body: Buffer; tag: Buffer }[] = [];
  for (let i = 0; i < d.length; i += 16384) {
    const cipher = createCipheriv('aes-256-gcm', key, chunkIv);
    const body = cipher.update(d.subarray(i, Math.min(d.length, i + 16384)));
    cipher.final();
    perChunkSealed.push({ body, tag: cipher.getAuthTag() });
  }
  const perChunkOpen = () => {
    for (const { body, tag } of perChunkSealed) {
      const decipher = createDecipheriv('aes-256-gcm', key, chunkIv);
      decipher.setAuthTag(tag);
      decipher.update(body);
      decipher.final();
    }
  };
  const [oursDecMs, refDecMs, perChunkDecMs] = await timeInterleaved(
    [
      () =>
        inSlices(sealed)
          .pipeThrough(createDecryptStream(key, { context: unboundBlobContext(), aesGcm: nodeAesGcm }))
          .pipeTo(countingSink(counted)),
      () => {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(one.tag);
        for (let i = 0; i < one.ct.length; i += SLICE)
          decipher.update(one.ct.subarray(i, Math.min(one.ct.length, i + SLICE)));
        return decipher.final();
      },
      perChunkOpen,
    ],
    plan,
  );
  const oursDec = mbps(
    rec,
    {
      id: 'blob.stream.decrypt.node',
      label: `createDecryptStream (node, { context: unboundBlobContext() }) ${tag}, output discarded`,
      sizeBytes: size,
      series: 'blob streaming decrypt (node)',
    },
    oursDecMs!,
  );
  rec.compare(
    oursDec,
    mbps(
      rec,
      {
        id: `ref.node-gcm.per-chunk-decrypt.${size}`,
        label: `node:crypto new decipher per 16 KiB chunk ${tag}, output discarded (the format floor)`,
        sizeBytes: size,
        series: 'node:crypto decipher per chunk, output discarded',
        reference: true,
      },
      perChunkDecMs!,
    ),
  );
  rec.compare(
    oursDec,
    mbps(
      rec,
      {
        id: `ref.node-gcm.stream-decrypt.${size}`,
        label: `node:crypto one-decipher update ${tag}, output discarded`,
        sizeBytes: size,
        series: 'node:crypto one-decipher, output discarded',
        reference: true,
      },
      refDecMs!,
    ),
  );
}

/** Peak memory, file to file, one child per case: ours streams; Happy's path holds the whole blob. */
async function fileToFileMemory(
  ctx: BenchContext,
  rec: SuiteRecorder,
  key: Uint8Array,
  size: number,
  runs: number,
): Promise<void> {
  const input = join(ctx.scratchDir, 'plain.bin');
  await writeRandomFile(input, size);
  const keyHex = Buffer.from(key).toString('hex');
  const ours = await runChild<{ ms: number[]; sha: string }>('blob:encryptFile', {
    input,
    output: join(ctx.scratchDir, 'ours.enc'),
    keyHex,
    runs,
  });
  const theirs = await runChild<{ ms: number[] }>('blob:secretboxFile', {
    input,
    output: join(ctx.scratchDir, 'nacl.enc'),
    keyHex,
    runs,
  });
  // Check: the file we timed decrypts back to the input.
  const back = await decryptBlob(new Uint8Array(await readFile(join(ctx.scratchDir, 'ours.enc'))), key, {
    context: unboundBlobContext(),
  });
  if (sha256(back) !== (await sha256File(input)))
    throw new Error('encryptFile output did not decrypt to the input');
  rec.check(`encryptFile ${formatBytes(size)} output decrypts to the input (SHA-256)`);
  const tag = formatBytes(size);
  const o = rec.add({
    id: 'blob.encryptFile',
    suite: 'blob',
    label: `encryptFile file→file ${tag}`,
    unit: 'MB/s',
    sizeBytes: size,
    peakRssBytes: ours.maxRssBytes,
    summary: summarize(ours.result.ms.map((t) => megabytesPerSecond(size, t))),
  });
  const t = rec.add({
    id: 'ref.secretbox.file',
    suite: 'blob',
    label: `readFile+secretbox+writeFile ${tag}`,
    unit: 'MB/s',
    sizeBytes: size,
    reference: true,
    peakRssBytes: theirs.maxRssBytes,
    summary: summarize(theirs.result.ms.map((x) => megabytesPerSecond(size, x))),
  });
  rec.compare(o, t);
}

/**
 * File → file, one thread (`encryptFile`/`decryptFile`) and worker threads (`encryptFileParallel`/
 * `decryptFileParallel`), each run in a child process of its own (peak RSS), beside one node:crypto
 * cipher on one core over the same bytes in memory (output discarded) timed in this process between the
 * children: the goal is worker threads beating one core's single cipher, with memory still flat.
 */
async function fileToFileThreads(
  ctx: BenchContext,
  rec: SuiteRecorder,
  key: Uint8Array,
  data: Uint8Array,
  runs: number,
): Promise<void> {
  const size = data.length;
  const tag = formatBytes(size);
  const plain = join(ctx.scratchDir, 'threads-plain.bin');
  const sealed = join(ctx.scratchDir, 'threads-sealed.bin');
  await writeFile(plain, data);
  await encryptFile(plain, sealed, key, { context: unboundBlobContext() });
  const keyHex = Buffer.from(key).toString('hex');
  const cases = [
    {
      id: 'blob.file.encrypt.1',
      mode: 'encrypt',
      threads: 1,
      label: `encryptFile file→file ${tag}, 1 thread`,
    },
    {
      id: 'blob.file.encrypt.workers',
      mode: 'encrypt',
      threads: 0,
      label: `encryptFileParallel file→file ${tag}`,
    },
    {
      id: 'blob.file.decrypt.1',
      mode: 'decrypt',
      threads: 1,
      label: `decryptFile file→file ${tag}, 1 thread`,
    },
    {
      id: 'blob.file.decrypt.workers',
      mode: 'decrypt',
      threads: 0,
      label: `decryptFileParallel file→file ${tag}`,
    },
  ] as const;
  const ms = new Map<string, number[]>(cases.map((c) => [c.id, []]));
  const rss = new Map<string, number>();
  const refMs: number[] = [];
  const copyMs: number[] = [];
  const iv = randomBytes(12);
  const oneCipher = () => {
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    for (let i = 0; i < size; i += SLICE) cipher.update(data.subarray(i, Math.min(size, i + SLICE)));
    cipher.final();
    return cipher.getAuthTag();
  };
  oneCipher();
  for (let round = 0; round < runs; round++) {
    for (const c of cases) {
      const out = join(ctx.scratchDir, `threads-out-${c.mode}-${c.threads}.bin`);
      const child = await runChild<{ ms: number; sha: string }>('blob:fileJob', {
        mode: c.mode,
        threads: c.threads,
        input: c.mode === 'encrypt' ? plain : sealed,
        output: out,
        keyHex,
      });
      if (round === 0) {
        // Check the first run's output: encryptions decrypt to the input, decryptions equal it.
        const bytes = new Uint8Array(await readFile(out));
        const back =
          c.mode === 'encrypt' ? await decryptBlob(bytes, key, { context: unboundBlobContext() }) : bytes;
        if (!equal(back, data)) throw new Error(`${c.label}: output does not match the input`);
      }
      ms.get(c.id)!.push(child.result.ms);
      rss.set(c.id, Math.max(rss.get(c.id) ?? 0, child.maxRssBytes));
      const start = performance.now();
      oneCipher();
      refMs.push(performance.now() - start);
    }
    const copy = await runChild<{ ms: number }>('blob:copyJob', {
      input: plain,
      output: join(ctx.scratchDir, 'threads-copy.bin'),
    });
    copyMs.push(copy.result.ms);
  }
  rec.check(
    `file→file ${tag}, 1 thread and worker threads: encryptions decrypt to the input, decryptions equal it`,
  );
  const ref = rec.add({
    id: `ref.node-gcm.one-core.${size}`,
    suite: 'blob',
    label: `node:crypto one cipher, one core, ${tag} in memory`,
    unit: 'MB/s',
    sizeBytes: size,
    reference: true,
    summary: summarize(refMs.map((t) => megabytesPerSecond(size, t))),
  });
  const disk = rec.add({
    id: `ref.file-copy-fsync.${size}`,
    suite: 'blob',
    label: `plain file copy ${tag}, fsynced (the disk's floor)`,
    unit: 'MB/s',
    sizeBytes: size,
    reference: true,
    summary: summarize(copyMs.map((t) => megabytesPerSecond(size, t))),
  });
  for (const c of cases) {
    const m = rec.add({
      id: c.id,
      suite: 'blob',
      label: c.label,
      unit: 'MB/s',
      sizeBytes: size,
      peakRssBytes: rss.get(c.id),
      summary: summarize(ms.get(c.id)!.map((t) => megabytesPerSecond(size, t))),
    });
    rec.compare(m, ref);
    rec.compare(m, disk);
  }
}

/** Cases run in a child process (see `harness/child.ts`). */
export const childCases = {
  async encryptFile(payload: unknown): Promise<{ ms: number[] }> {
    const { input, output, keyHex, runs } = payload as {
      input: string;
      output: string;
      keyHex: string;
      runs: number;
    };
    const key = new Uint8Array(Buffer.from(keyHex, 'hex'));
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await encryptFile(input, output, key, { context: unboundBlobContext() });
      ms.push(performance.now() - start);
    }
    return { ms };
  },
  /** One file → file encrypt or decrypt, one thread (`threads: 1`) or the worker-thread path (`0`: default count). */
  async fileJob(payload: unknown): Promise<{ ms: number }> {
    const { mode, threads, input, output, keyHex } = payload as {
      mode: 'encrypt' | 'decrypt';
      threads: number;
      input: string;
      output: string;
      keyHex: string;
    };
    const key = new Uint8Array(Buffer.from(keyHex, 'hex'));
    const start = performance.now();
    if (mode === 'encrypt') {
      await (threads === 1
        ? encryptFile(input, output, key, { context: unboundBlobContext() })
        : encryptFileParallel(input, output, key, { context: unboundBlobContext() }));
    } else {
      await (threads === 1
        ? decryptFile(input, output, key, { context: unboundBlobContext() })
        : decryptFileParallel(input, output, key, { context: unboundBlobContext() }));
    }
    return { ms: performance.now() - start };
  },
  /**
   * The disk's floor of a file → file job: the same bytes read and written (1 MiB reads into one buffer,
   * 256 KiB writes as the library makes) and fsynced before the rename, as `encryptFile`'s output is.
   */
  async copyJob(payload: unknown): Promise<{ ms: number }> {
    const { input, output } = payload as { input: string; output: string };
    const start = performance.now();
    const from = await open(input, 'r');
    const partial = `${output}.partial`;
    const to = await open(partial, 'w', 0o600);
    const buffer = new Uint8Array(MiB);
    for (;;) {
      const { bytesRead } = await from.read(buffer, 0, MiB, null);
      if (bytesRead === 0) break;
      for (let at = 0; at < bytesRead; ) {
        at += (await to.write(buffer, at, Math.min(256 * 1024, bytesRead - at))).bytesWritten;
      }
    }
    await to.sync();
    await Promise.all([from.close(), to.close()]);
    await rename(partial, output);
    return { ms: performance.now() - start };
  },
  async secretboxFile(payload: unknown): Promise<{ ms: number[] }> {
    const { input, output, keyHex, runs } = payload as {
      input: string;
      output: string;
      keyHex: string;
      runs: number;
    };
    const key = new Uint8Array(Buffer.from(keyHex, 'hex'));
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      const nonce = randomBytes(24);
      const boxed = nacl.secretbox(new Uint8Array(await readFile(input)), nonce, key);
      await writeFile(output, boxed);
      ms.push(performance.now() - start);
    }
    return { ms };
  },
};

/** The blob suite. */
export const blobSuite: Suite = {
  name: 'blob',
  description:
    'blob encrypt/decrypt per AES-GCM implementation vs node:crypto one-cipher AES-GCM and tweetnacl secretbox',
  run,
};
