/**
 * Types for `jpeg-js/lib/decoder.js` 0.4 (the package types only its index, which also loads the
 * encoder). CommonJS: `module.exports = decode`.
 */
declare module 'jpeg-js/lib/decoder.js' {
  interface JpegDecodeOptions {
    useTArray: true;
    formatAsRGBA?: boolean;
    colorTransform?: boolean;
    tolerantDecoding?: boolean;
    maxResolutionInMP?: number;
    maxMemoryUsageInMB?: number;
  }
  interface JpegPixels {
    width: number;
    height: number;
    data: Uint8Array;
  }
  function decode(data: Uint8Array, options: JpegDecodeOptions): JpegPixels;
  export default decode;
}
