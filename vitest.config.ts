import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers modest so probing (sharp, ffmpeg) and crypto tests do not starve each other.
    maxWorkers: 2,
  },
});
