/**
 * Every failure the library raises is a typed `HappyMediaError` with a stable code (src/core/errors.ts):
 * no source file under src/ constructs a plain `Error`, `TypeError` or `RangeError`, the demo included (it
 * runs inside the CLI). A comment or a TSDoc example may still mention one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The code of a TypeScript file with its comments blanked (line comments and block comments). */
function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/\/\/.*$/gm, '');
}

describe('typed errors only', () => {
  it('no plain Error, TypeError or RangeError is constructed under src/', () => {
    const src = join(ROOT, 'src');
    const files = readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => join(entry.parentPath, entry.name));
    expect(files.length).toBeGreaterThan(100);
    const plain: string[] = [];
    for (const file of files) {
      const lines = codeOf(readFileSync(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (/\bnew (?:Error|TypeError|RangeError)\(/.test(line)) {
          plain.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
        }
      });
    }
    expect(plain).toEqual([]);
  });
});
