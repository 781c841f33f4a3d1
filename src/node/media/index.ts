/** Public surface of the Node media layer. */
export {};
