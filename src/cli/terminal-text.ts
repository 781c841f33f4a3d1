/**
 * Text the CLI prints that it did not write itself (an error a server phrased, a session's name, a
 * record's content) reaches a terminal, which acts on control characters: ESC starts a sequence that can
 * move the cursor, rewrite what was printed or set the clipboard (OSC 52), BEL rings, CR and LF forge
 * lines. Every such character is printed as its JSON escape (`\u001b`), which reads the same and acts
 * on nothing.
 *
 * @module
 */

/** C0 controls (newline and tab included), DEL, C1 controls, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` with every control character written as `\uXXXX`. JSON text stays JSON (its strings hold C0
 * characters escaped already; the others are as valid escaped as raw).
 *
 * @example
 * ```ts
 * terminalText('refused\u001b]52;c;…\u0007'); // 'refused\\u001b]52;c;…\\u0007'
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
