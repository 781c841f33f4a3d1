/** Public surface of the Node playback layer. */
export {};
