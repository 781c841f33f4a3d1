/** Benchmark suite entry (filled in by the benchmark issue). */
export {};
