/** Public surface of the blob layer. */
export {};
