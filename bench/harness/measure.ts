/**
 * Timing: warm-up, then several timed runs; each run yields one sample.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';

/** How many runs to do. */
export interface RunPlan {
  /** Untimed runs first (JIT, page cache, lazy initialisation). */
  warmup: number;
  /** Timed runs; the median of these is reported. */
  runs: number;
}

/**
 * Runs `fn` `warmup` times untimed, then `runs` times timed, and returns each timed run's duration in ms.
 *
 * @example
 * ```ts
 * const ms = await timeRuns(() => encryptBlob(data, key), { warmup: 1, runs: 5 });
 * ```
 */
export async function timeRuns(fn: () => unknown, plan: RunPlan): Promise<number[]> {
  for (let i = 0; i < plan.warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < plan.runs; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

/**
 * Times several cases round-robin: each round runs every case once (rotating which goes first), after
 * `plan.warmup` untimed rounds. On a shared machine the load changes by the second; interleaving makes
 * each round's cases see the same load, so their ratio holds even when the absolute figures move.
 * Returns, per case, its `plan.runs` durations in ms.
 */
export async function timeInterleaved(fns: readonly (() => unknown)[], plan: RunPlan): Promise<number[][]> {
  for (let i = 0; i < plan.warmup; i++) for (const fn of fns) await fn();
  const out = fns.map(() => [] as number[]);
  for (let round = 0; round < plan.runs; round++) {
    for (let k = 0; k < fns.length; k++) {
      const j = (k + round) % fns.length;
      const start = performance.now();
      await fns[j]!();
      out[j]!.push(performance.now() - start);
    }
  }
  return out;
}

/**
 * Measures operations too short to time alone (a 1 KiB seal), in operations per second: each gets a
 * batch calibrated to last about `batchMs`, then the batches run round-robin like {@link timeInterleaved}.
 */
export async function opsPerSecondInterleaved(
  ops: readonly (() => unknown)[],
  plan: RunPlan,
  batchMs = 150,
): Promise<number[][]> {
  const batches: number[] = [];
  for (const op of ops) {
    let batch = 1;
    for (;;) {
      const start = performance.now();
      for (let i = 0; i < batch; i++) await op();
      const took = performance.now() - start;
      if (took >= batchMs / 10 || batch >= 1 << 24) {
        batches.push(Math.max(1, Math.round((batch * batchMs) / Math.max(took, 0.001))));
        break;
      }
      batch *= 2;
    }
  }
  const ms = await timeInterleaved(
    ops.map((op, k) => async () => {
      for (let i = 0; i < batches[k]!; i++) await op();
    }),
    plan,
  );
  return ms.map((runs, k) => runs.map((m) => batches[k]! / (m / 1000)));
}
