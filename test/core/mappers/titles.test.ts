/**
 * Titles: `shortText` finds the first line of a text instead of splitting every line off, and collapses
 * whitespace only where that changes something; it answers what the plain definition answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortText } from '../../../src/core/mappers/titles.js';

/** The definition: the trimmed text's first line, whitespace runs as one space, cut to `max` with an ellipsis. */
function reference(text: string, max: number): string {
  const lines = text.trim().split(/\r?\n/);
  let line = (lines[0] ?? '').replace(/\s+/g, ' ').trim();
  const more = lines.length > 1;
  if (line.length > max) line = `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
  else if (more) line = line.length + 2 > max ? `${line.slice(0, max - 2).trimEnd()} …` : `${line} …`;
  return line;
}

/** Texts mostly of whitespace of every kind, line ends and a few letters. */
const text = fc.oneof(
  fc
    .array(
      fc.constantFrom(
        ' ',
        '  ',
        '\t',
        '\n',
        '\r',
        '\r\n',
        '\u00a0',
        '\u2028',
        '\u3000',
        '\v',
        'a',
        'b c',
        '`',
      ),
      {
        maxLength: 16,
      },
    )
    .map((parts) => parts.join('')),
  fc.string({ maxLength: 40 }),
);

describe('shortText', () => {
  it('answers what the definition answers', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 12 }), (value, max) => {
        expect(shortText(value, max)).toBe(reference(value, max));
      }),
      { numRuns: 20_000 },
    );
  });

  it('cuts the first line of a long text', () => {
    const long = `${'word '.repeat(100)}\r\n${'more\n'.repeat(1000)}`;
    expect(shortText(long, 20)).toBe(reference(long, 20));
    expect(shortText('npm test\n  --watch', 20)).toBe('npm test …');
  });
});
