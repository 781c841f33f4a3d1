/**
 * Public surface of the universal send path: a picked file (what an app's picker knows, and its bytes)
 * encrypted into a store and described as a v2 media message, with no `node:` import. Node's
 * `sendMedia` checks its options and builds its messages with the same functions (send-options.ts,
 * media-message.ts).
 *
 * @module
 */
export type { MediaDetails, MediaKind } from './media-message.js';
export type { PickedMedia, PickedMediaSource } from './picked-media.js';
export type { SendTargetOptions } from './send-options.js';
export {
  type SendPickedMediaOptions,
  type SendPickedMediaResult,
  sendPickedMedia,
} from './send-picked-media.js';
