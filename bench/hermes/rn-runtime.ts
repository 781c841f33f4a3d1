/**
 * What React Native's runtime sets up before any app module runs, and the Hermes CLI does not: the
 * `global` alias of `globalThis` (polyfills such as fast-text-encoding install themselves on it).
 *
 * @module
 */
(globalThis as unknown as { global: typeof globalThis }).global = globalThis;
