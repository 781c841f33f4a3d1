import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // The benchmarks import the library by its package name; a test that imports a bench module gets the
    // sources, the same copy the test itself imports (as tsconfig.json's `paths` do for types).
    alias: [
      { find: /^happy-media$/, replacement: source('./src/index.ts') },
      { find: /^happy-media\/envelope$/, replacement: source('./src/envelope.ts') },
      { find: /^happy-media\/blob$/, replacement: source('./src/blob.ts') },
      { find: /^happy-media\/happy$/, replacement: source('./src/happy.ts') },
      { find: /^happy-media\/mappers$/, replacement: source('./src/mappers.ts') },
      { find: /^happy-media\/storage$/, replacement: source('./src/storage.ts') },
      { find: /^happy-media\/node$/, replacement: source('./src/node/index.ts') },
      { find: /^happy-media\/web$/, replacement: source('./src/web/index.ts') },
      { find: /^happy-media\/expo$/, replacement: source('./src/expo/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/byte-equality.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers modest so probing (sharp, ffmpeg) and crypto tests do not starve each other.
    maxWorkers: 2,
  },
});
