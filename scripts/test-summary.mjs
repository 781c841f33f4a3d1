#!/usr/bin/env node
// Reads vitest's JSON report and prints the closing line CI looks for: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.tmp/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.log(`tests: could not read ${file}: ${error.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A test file that failed without a failing test (it did not load, or a hook threw) counts as one failure.
const brokenFiles = (report.testResults ?? []).filter(
  (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
