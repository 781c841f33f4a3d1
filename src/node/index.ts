/**
 * happy-media, Node entry: media probing (sharp, ffmpeg), storage, the send pipeline, playback and the
 * Node fast paths. Re-exports the universal entry too, so Node callers need one import.
 *
 * @packageDocumentation
 */
export * from '../index.js';
export * from './blob/index.js';
export * from './envelope/index.js';
export * from './media/index.js';
export * from './playback/index.js';
export * from './send/index.js';
export * from './storage/index.js';
