/** Public surface of the protocol layer. */
export {};
