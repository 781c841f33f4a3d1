/**
 * One value as a POSIX shell word, for the `export NAME=…` lines the CLI prints (`--env`): single quotes
 * around it, each single quote inside written as `'\''`.
 *
 * @module
 */

/**
 * `value` quoted for a POSIX shell.
 *
 * @example
 * ```ts
 * shellQuote("it's"); // 'it'\''s'
 * ```
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
