/**
 * Short inline-markdown titles for tool calls: the design asks for a `title` (short, inline markdown)
 * and a `description` (longer). These helpers make provider text safe and short for both.
 *
 * @module
 */

/** Longest title the mappers write, in characters. */
export const MAX_TITLE_LENGTH = 80;
/** Longest description the mappers write, in characters. */
export const MAX_DESCRIPTION_LENGTH = 300;

/** Whitespace that collapsing changes: a run of two, or one that is not a plain space. */
const NEEDS_COLLAPSE = /\s\s|[^\S ]/;

/**
 * The first line of `text`, whitespace collapsed, cut to `max` characters with an ellipsis.
 *
 * @example
 * ```ts
 * shortText('npm test\n  --watch', 20); // 'npm test …'
 * ```
 */
export function shortText(text: string, max: number = MAX_TITLE_LENGTH): string {
  // The first line is found, not split off: splitting a long text into all its lines cost more than the
  // rest, and most titles are one short line whose spaces need no collapsing.
  const trimmed = text.trim();
  const newline = trimmed.indexOf('\n');
  const more = newline >= 0;
  let line = more
    ? trimmed.slice(0, trimmed.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline)
    : trimmed;
  if (NEEDS_COLLAPSE.test(line)) line = line.replace(/\s+/g, ' ');
  line = line.trim();
  if (line.length > max) line = `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
  else if (more) line = line.length + 2 > max ? `${line.slice(0, max - 2).trimEnd()} …` : `${line} …`;
  return line;
}

/**
 * `text` as an inline code span that renders literally: shortened to `max`, fenced with more backticks
 * than it contains.
 *
 * @example
 * ```ts
 * codeSpan('ls -la'); // '`ls -la`'
 * codeSpan('a `b` c'); // '`` a `b` c ``'
 * ```
 */
export function codeSpan(text: string, max = 60): string {
  const short = shortText(text, max);
  let longest = 0;
  for (const run of short.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || short.startsWith('`') || short.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${short}${pad}${fence}`;
}

/**
 * The last `keep` segments of a path (`…/src/index.ts`), for titles where the whole path is too long.
 *
 * @example
 * ```ts
 * shortPath('/home/me/project/src/index.ts'); // '…/src/index.ts'
 * ```
 */
export function shortPath(path: string, keep = 2): string {
  const parts = path.split(/[/\\]/).filter((part) => part.length > 0);
  if (parts.length <= keep) return path;
  return `…/${parts.slice(-keep).join('/')}`;
}
