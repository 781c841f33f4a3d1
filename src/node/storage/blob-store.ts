/**
 * The storage contract moved to the universal core (`src/core/storage/blob-store.ts`): it needs only Web
 * APIs, and Happy's attachment store, which speaks only `fetch`, implements it there. Re-exported here so
 * the Node stores and existing imports keep their paths.
 *
 * @module
 */
export * from '../../core/storage/blob-store.js';
