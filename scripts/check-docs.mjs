#!/usr/bin/env node
/**
 * Docs check: finds statements in the docs that the repository contradicts.
 *
 * - dependency lists: every package in docs/architecture.md's entry table ("may import") is a dependency
 *   in package.json (regular, optional or peer), every such dependency is listed there, and a sentence saying a package "is in
 *   package.json" or "is not a dependency" agrees with package.json;
 * - scripts: every `npm run X` in the docs, README files and .ci/run names a script of package.json;
 * - files: every repo path the docs cite (links, and `src/…`, `docs/…`, … paths in code spans) exists, and a
 *   bare `NAME.md` cited in docs or source comments exists in the repo (machine notes outside the repo are
 *   cited as `../shared/NAME.md`).
 *
 * Usage: `node scripts/check-docs.mjs` (exit 1 and one line per problem); run by `npm run check:docs`,
 * .ci/run and test/node/check-docs.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Top-level folders a cited repo path starts with. */
const REPO_ROOTS = [
  'src/',
  'test/',
  'docs/',
  'bench/',
  'scripts/',
  'web/',
  'samples/',
  '.ci/',
  'integrations/',
];

/** A token that names an npm package (`sharp`, `@aws-sdk/client-s3`). */
const PACKAGE_NAME = /^@?[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9._-]+)?$/;

function listFiles(root, dir, suffix) {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((path) => !path.includes('node_modules'));
}

/** The documents checked: README files, docs/, and .ci/run (for `npm run`). */
export function docFiles(root = DEFAULT_ROOT) {
  return ['README.md', 'bench/README.md', ...listFiles(root, 'docs', '.md')].filter((path) =>
    existsSync(join(root, path)),
  );
}

function readPackage(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const runtime = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
  ]);
  const all = new Set([...runtime, ...Object.keys(pkg.devDependencies ?? {})]);
  return { runtime, all, scripts: new Set(Object.keys(pkg.scripts ?? {})) };
}

/** Package names in the "may import" column of the entry table of `text` (docs/architecture.md). */
export function entryTablePackages(text) {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => /^\|.*\bmay import\b.*\|$/.test(line));
  if (header < 0) return undefined;
  const column = lines[header].split('|').findIndex((cell) => /may import/.test(cell));
  const names = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cell = line.split('|')[column] ?? '';
    for (const part of cell.replace(/\([^)]*\)/g, '').split(/[,;]/)) {
      const token = part
        .replace(/`/g, '')
        .replace(/^\s*everything above plus\s*/, '')
        .trim();
      if (PACKAGE_NAME.test(token) && !token.startsWith('node:')) names.push(token);
    }
  }
  return names;
}

/** Problems of one document's text. `path` is its repo path; `pkg` from package.json. */
export function checkDocument(path, text, pkg, root = DEFAULT_ROOT) {
  const problems = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const at = `${path}:${index + 1}`;
    for (const [, script] of line.matchAll(/\bnpm run ([a-z][\w:-]*)/g)) {
      if (!pkg.scripts.has(script))
        problems.push(`${at}: \`npm run ${script}\` but package.json has no such script`);
    }
    for (const [, name] of line.matchAll(
      /`?(@?[a-z0-9][\w./-]*)`?\s+(?:stays|is|remains|is listed) in package\.json/g,
    )) {
      if (PACKAGE_NAME.test(name) && !pkg.all.has(name)) {
        problems.push(`${at}: says ${name} is in package.json, but it is not`);
      }
    }
    for (const [, name] of line.matchAll(/`?(@?[a-z0-9][\w./-]*)`?\s+is not a dependency/g)) {
      if (pkg.all.has(name))
        problems.push(`${at}: says ${name} is not a dependency, but package.json lists it`);
    }
    if (path.endsWith('.md')) problems.push(...checkFileRefs(path, at, line, root));
  });
  return problems;
}

function isRepoPath(token) {
  return REPO_ROOTS.some((prefix) => token.startsWith(prefix));
}

/**
 * Folders the repository ignores because a script makes them (`samples/generated/`, `dist/`): a doc may
 * cite them although a fresh clone does not have them yet. Read from .gitignore's folder lines.
 */
function generatedFolders(root) {
  const gitignore = join(root, '.gitignore');
  if (!existsSync(gitignore)) return [];
  return readFileSync(gitignore, 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^\//, ''))
    .filter((line) => line.endsWith('/') && !line.startsWith('#'));
}

/** Cited files of one markdown line that do not exist. */
function checkFileRefs(path, at, line, root) {
  const problems = [];
  const here = dirname(path);
  for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(?:[a-z]+:|#)/.test(target)) continue;
    const file = target.split('#')[0];
    if (file && !existsSync(join(root, here, file)))
      problems.push(`${at}: link to ${file}, which does not exist`);
  }
  for (const [, span] of line.matchAll(/`([^`]+)`/g)) {
    const token = span.replace(/:\d+(?:-\d+)?$/, '');
    if (!isRepoPath(token) || /[*<>{}$ ]/.test(token)) continue;
    if (generatedFolders(root).some((folder) => token.startsWith(folder))) continue;
    if (!existsSync(join(root, token))) problems.push(`${at}: cites ${token}, which does not exist`);
  }
  return problems;
}

/**
 * Bare `NAME.md` citations (no folder) in `text` that exist neither at the root, in docs/ nor beside it.
 * In source files only comment lines are read (a test's strings may name made-up files).
 */
export function checkBareMarkdownCitations(path, text, root = DEFAULT_ROOT) {
  const problems = [];
  const source = !path.endsWith('.md');
  text.split('\n').forEach((line, index) => {
    if (source && !/^\s*(?:\*|\/\/|\/\*)/.test(line)) return;
    for (const match of line.matchAll(/(?<![\w./-])([A-Za-z][\w-]*\.md)\b/g)) {
      const name = match[1];
      const candidates = [name, join('docs', name), join(dirname(path), name)];
      if (!candidates.some((candidate) => existsSync(join(root, candidate)))) {
        problems.push(
          `${path}:${index + 1}: cites ${name}, which is not in the repo (cite ../shared/${name} if it is the machine notes)`,
        );
      }
    }
  });
  return problems;
}

/** Every problem in the repository at `root`. */
export function checkDocs(root = DEFAULT_ROOT) {
  const pkg = readPackage(root);
  const problems = [];
  for (const path of [...docFiles(root), '.ci/run'].filter((file) => existsSync(join(root, file)))) {
    const text = readFileSync(join(root, path), 'utf8');
    problems.push(...checkDocument(path, text, pkg, root));
    if (path.endsWith('.md')) problems.push(...checkBareMarkdownCitations(path, text, root));
  }
  for (const path of ['src', 'bench', 'scripts', 'test'].flatMap((dir) => listFiles(root, dir, '.ts'))) {
    problems.push(...checkBareMarkdownCitations(path, readFileSync(join(root, path), 'utf8'), root));
  }
  const architecture = join(root, 'docs/architecture.md');
  if (existsSync(architecture)) {
    const listed = entryTablePackages(readFileSync(architecture, 'utf8')) ?? [];
    for (const name of listed) {
      if (!pkg.runtime.has(name)) {
        problems.push(`docs/architecture.md: the entry table lists ${name}, which is not a dependency`);
      }
    }
    for (const name of pkg.runtime) {
      if (!listed.includes(name)) {
        problems.push(`docs/architecture.md: the entry table omits the dependency ${name}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkDocs();
  for (const problem of problems) process.stderr.write(`check-docs: ${problem}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write('check-docs: docs agree with package.json and the repo\n');
}
