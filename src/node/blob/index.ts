/** Public surface of the Node blob layer. */
export {};
