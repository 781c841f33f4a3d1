/**
 * Where the external corpus lies (`../shared/corpus`), if it does. The conformance suite reads it from
 * the directory named by `HAPPY_MEDIA_CORPUS` and skips itself when that is unset, so the ordinary test
 * suite passes on a fresh clone without it. `.ci/run` always sets it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Absolute corpus directory, or undefined when `HAPPY_MEDIA_CORPUS` is unset. Throws if set but missing. */
export function corpusDir(): string | undefined {
  const dir = process.env.HAPPY_MEDIA_CORPUS;
  if (!dir) return undefined;
  const abs = resolve(dir);
  if (!existsSync(abs)) throw new Error(`HAPPY_MEDIA_CORPUS=${dir} does not exist`);
  return abs;
}

/** True when the conformance suite should run. */
export const hasCorpus = corpusDir() !== undefined;

/** Path of a file inside the corpus (only call when {@link hasCorpus}). */
export function corpusPath(...parts: string[]): string {
  const dir = corpusDir();
  if (!dir) throw new Error('HAPPY_MEDIA_CORPUS is not set');
  return join(dir, ...parts);
}

/** Reads and parses a JSON file of the corpus. */
export async function readCorpusJson<T = unknown>(...parts: string[]): Promise<T> {
  return JSON.parse(await readFile(corpusPath(...parts), 'utf8')) as T;
}

/** Reads a CSV file of the corpus (such as `media/index.csv`) into objects keyed by its header. */
export async function readCorpusCsv(...parts: string[]): Promise<Record<string, string>[]> {
  return parseCsv(await readFile(corpusPath(...parts), 'utf8'));
}

/** Parses RFC 4180 CSV (quoted fields may hold commas and doubled quotes) into objects keyed by the header. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}
