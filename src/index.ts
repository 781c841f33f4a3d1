/**
 * happy-media, universal entry: Session Protocol v2, envelope encryption and chunked blob encryption.
 *
 * Nothing under this entry imports `node:` modules or Node globals, so it bundles for browsers and React
 * Native. Node-only parts (sharp, ffmpeg, files, servers, CLI) live behind `happy-media/node`.
 *
 * @packageDocumentation
 */

export * from './core/base64-codec.js';
export * from './core/blob/index.js';
export * from './core/bytes.js';
export * from './core/crypto/index.js';
export * from './core/envelope/index.js';
export * from './core/errors.js';
export * from './core/playback/index.js';
export * from './core/protocol/index.js';
export * from './core/storage/index.js';
export * from './core/transport/index.js';
