/**
 * Reading an upload body of announced length moved to the universal core
 * (`src/core/storage/sized-body.ts`); re-exported here for the Node stores.
 *
 * @module
 */
export * from '../../core/storage/sized-body.js';
