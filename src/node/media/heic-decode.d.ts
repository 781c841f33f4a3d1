/**
 * Types for `heic-decode` 2.1 (it ships none). CommonJS: `module.exports = one; one.all = all`.
 */
declare module 'heic-decode' {
  interface HeicPixels {
    width: number;
    height: number;
    data: Uint8ClampedArray;
  }
  interface HeicImage {
    width: number;
    height: number;
    decode(): Promise<HeicPixels>;
  }
  interface DecodeOne {
    (input: { buffer: Uint8Array }): Promise<HeicPixels>;
    all(input: { buffer: Uint8Array }): Promise<HeicImage[] & { dispose(): void }>;
  }
  const decode: DecodeOne;
  export default decode;
}
