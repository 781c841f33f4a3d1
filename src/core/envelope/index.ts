/** Public surface of the envelope layer. */
export {};
