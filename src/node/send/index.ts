/** Public surface of the Node send layer. */
export {};
