#!/usr/bin/env node
/**
 * The build's step after compaction: the declaration files (.d.ts) of `dist/` that no entry of the
 * package can reach, deleted. tsc emits one for every module, including the command line's and the
 * Node helpers' internals that no `exports` entry leads to; an editor never opens them, a type-checker
 * never loads them, and they were a third of the declarations an app installs (docs/architecture.md,
 * "What an app installs": the goal is 10 MB, and zod alone is 6.1 MB).
 *
 * Reachable: the `types` file of every entry in package.json's `exports`, and every module a reachable
 * declaration file imports (`import`/`export … from`, `import("…")` types, `/// <reference path>`), as
 * TypeScript's own pre-processor lists them. The JavaScript is untouched. test/node/package-declarations.test.ts
 * type-checks a consumer of every entry against the result.
 *
 * Usage: `node scripts/prune-declarations.mjs` (run by `npm run build`, from the package's root).
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The `types` files named by package.json's `exports`, at any depth of conditions. */
function entryDeclarations(exportsField) {
  const found = [];
  const visit = (value, key) => {
    if (typeof value === 'string') {
      if (key === 'types') found.push(resolve(root, value));
    } else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) visit(inner, name);
    }
  };
  visit(exportsField, '');
  return found;
}

/** The declaration file a relative specifier of `from` names, or undefined for a package import. */
function declarationOf(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.(m|c)?js$/, '.d.$1ts'),
    `${base}.d.ts`,
    join(base, 'index.d.ts'),
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The modules of `export * as name from '…'` statements, which `ts.preProcessFile` leaves out of its list
 * (the root entry's `errors` namespace is one): read from the parsed file.
 */
function namespaceReexports(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  return source.statements
    .filter(
      (statement) =>
        ts.isExportDeclaration(statement) &&
        statement.exportClause !== undefined &&
        ts.isNamespaceExport(statement.exportClause) &&
        statement.moduleSpecifier !== undefined &&
        ts.isStringLiteral(statement.moduleSpecifier),
    )
    .map((statement) => statement.moduleSpecifier.text);
}

const entries = entryDeclarations(manifest.exports);
if (entries.length === 0) {
  process.stderr.write('prune-declarations: package.json names no `types` entry: nothing pruned\n');
  process.exit(1);
}
const reachable = new Set();
const pending = [...entries];
while (pending.length > 0) {
  const file = pending.pop();
  if (reachable.has(file)) continue;
  if (!existsSync(file)) {
    process.stderr.write(`prune-declarations: ${file} is named but was not emitted: build first\n`);
    process.exit(1);
  }
  reachable.add(file);
  const text = readFileSync(file, 'utf8');
  const info = ts.preProcessFile(text, true, true);
  for (const fileName of [
    ...info.importedFiles.map((imported) => imported.fileName),
    ...info.referencedFiles.map((referenced) => referenced.fileName),
    ...namespaceReexports(file, text),
  ]) {
    const next = declarationOf(file, fileName);
    if (next && !reachable.has(next)) pending.push(next);
  }
}

const dist = resolve(root, 'dist');
let kept = 0;
let pruned = 0;
let prunedBytes = 0;
const sweep = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sweep(path);
    else if (path.endsWith('.d.ts')) {
      if (reachable.has(path)) kept += 1;
      else {
        prunedBytes += statSync(path).size;
        rmSync(path);
        pruned += 1;
      }
    }
  }
};
sweep(dist);
process.stdout.write(
  `prune-declarations: kept ${kept} declaration files reachable from ${entries.length} entries, ` +
    `deleted ${pruned} (${prunedBytes} bytes)\n`,
);
