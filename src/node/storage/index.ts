/** Public surface of the Node storage layer. */
export {};
