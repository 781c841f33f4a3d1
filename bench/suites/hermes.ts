/**
 * React Native's engine: pure-JS blob decrypt of the universal entry under the Hermes VM
 * (hermes-engine-cli 0.12.0, bundled and lowered as a Metro build, an app's globals only: no
 * crypto.subtle), beside tweetnacl `secretbox.open` under Hermes over the same plaintext size (what Happy's
 * app reads v1 blobs with). Both run inside one Hermes process, interleaved by phase, after a round-trip check.
 * A native cipher (react-native-quick-crypto through `cipherModuleAesGcm`) cannot run in the CLI VM;
 * the engine-only figure (the Cipher-API AES-GCM over a module that copies instead of encrypting) is the
 * ceiling it approaches, before its own AES time. Likewise for Happy's app path, the asynchronous engine
 * over expo-crypto (`expoCryptoAesGcm`, whole and through `downloadMedia` in 64 KiB pieces): a stand-in of
 * expo-crypto's AES module whose calls resolve with copies gives the engine's own ceiling under Hermes
 * with a native cipher (labelled as a stand-in: no AES, no native call).
 *
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, SkipSuite, type Suite, type SuiteRecorder } from '../harness/context.js';
import { bundleForHermes, hermesBinary, packageRoot, runHermes } from '../harness/hermes.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const binary = hermesBinary();
  if (binary === undefined) throw new SkipSuite('hermes-engine-cli has no Hermes binary for this platform');
  try {
    await import('esbuild');
    await import('@babel/core');
  } catch {
    throw new SkipSuite('esbuild or @babel/core is not installed (dev dependencies)');
  }
  const size = ctx.quick ? 256 * 1024 : 2 * 1024 * 1024;
  const runs = ctx.quick ? 2 : 4;
  const script = join(ctx.scratchDir, 'hermes-bench.js');
  await bundleForHermes(join(packageRoot(), 'bench', 'hermes', 'bench-entry.ts'), script);
  // The sizes go in as a global before the bundle (the Hermes CLI has no argv for scripts).
  const bundle = await readFile(script, 'utf8');
  await writeFile(script, `var HERMES_BENCH = ${JSON.stringify({ size, runs })};\n${bundle}`);
  ctx.log(`hermes: ${formatBytes(size)} × ${runs} runs`);
  const result = await runHermes(binary, script, 900_000);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  let parsed: {
    size?: number;
    blobDecryptMs?: number[];
    secretboxOpenMs?: number[];
    engineOnlyMs?: number[];
    asyncEngineMs?: number[];
    asyncDownloadMs?: number[];
    error?: string;
  };
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`the Hermes run printed no result (exit ${result.code}): ${result.stderr.slice(0, 500)}`);
  }
  if (
    parsed.error ||
    !parsed.blobDecryptMs ||
    !parsed.secretboxOpenMs ||
    !parsed.engineOnlyMs ||
    !parsed.asyncEngineMs ||
    !parsed.asyncDownloadMs
  ) {
    throw new Error(`the Hermes run failed: ${parsed.error ?? 'no timings'}`);
  }
  rec.check(
    `under Hermes: the noble blob and tweetnacl secretbox both round-trip ${formatBytes(size)}; so do the copying stand-ins through the sync and async engines (whole and downloadMedia)`,
  );
  const ours = rec.add({
    id: 'hermes.decrypt.noble',
    suite: 'hermes',
    label: `Hermes decryptBlob (noble, pure JS) ${formatBytes(size)}`,
    unit: 'MB/s',
    sizeBytes: size,
    series: 'Hermes decryptBlob noble',
    summary: summarize(parsed.blobDecryptMs.map((ms) => megabytesPerSecond(size, ms))),
  });
  const reference = rec.add({
    id: 'ref.hermes.secretbox.open',
    suite: 'hermes',
    label: `Hermes tweetnacl secretbox.open ${formatBytes(size)}`,
    unit: 'MB/s',
    sizeBytes: size,
    series: 'Hermes tweetnacl secretbox.open (Happy v1)',
    reference: true,
    summary: summarize(parsed.secretboxOpenMs.map((ms) => megabytesPerSecond(size, ms))),
  });
  rec.compare(ours, reference);
  const engine = rec.add({
    id: 'hermes.decrypt.engine-only',
    suite: 'hermes',
    label: `Hermes decryptBlob engine only (copying Cipher-API module) ${formatBytes(size)}`,
    unit: 'MB/s',
    sizeBytes: size,
    series: 'Hermes decryptBlob engine only',
    summary: summarize(parsed.engineOnlyMs.map((ms) => megabytesPerSecond(size, ms))),
  });
  rec.compare(engine, reference);
  for (const [id, label, ms] of [
    [
      'hermes.decrypt.async-stand-in',
      `Hermes decryptBlob async engine over expoCryptoAesGcm, stand-in ceiling (expo-shaped module that copies, no AES) ${formatBytes(size)}`,
      parsed.asyncEngineMs,
    ],
    [
      'hermes.download.async-stand-in',
      `Hermes downloadMedia 64 KiB pieces, async engine over expoCryptoAesGcm, stand-in ceiling (expo-shaped module that copies, no AES) ${formatBytes(size)}`,
      parsed.asyncDownloadMs,
    ],
  ] as const) {
    const figure = rec.add({
      id,
      suite: 'hermes',
      label,
      unit: 'MB/s',
      sizeBytes: size,
      series: label.replace(/ \d.*$/, ''),
      summary: summarize(ms.map((t) => megabytesPerSecond(size, t))),
    });
    rec.compare(figure, reference);
    rec.compare(figure, ours);
  }
}

/** The Hermes suite. */
export const hermesSuite: Suite = {
  name: 'hermes',
  description:
    'pure-JS blob decrypt under the Hermes VM vs tweetnacl secretbox.open under Hermes; the sync and async (expoCryptoAesGcm) engine ceilings with copying stand-ins for a native cipher',
  run,
};
