/**
 * Entry of a benchmark child process: reads `{ kind, payload }` from stdin, runs the case
 * `suites/<suite>.js` → `childCases[<case>]` (kind is `suite:case`), and prints one JSON line with the
 * result and this process's peak RSS.
 *
 * @module
 */
import { peakRssBytes } from './harness/peak-rss.js';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const { kind, payload } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
  kind: string;
  payload: unknown;
};
const match = /^([a-z-]+):([a-zA-Z-]+)$/.exec(kind);
if (!match) throw new Error(`bad child case kind ${JSON.stringify(kind)}`);
const mod = (await import(`./suites/${match[1]}.js`)) as {
  childCases?: Record<string, (payload: unknown) => Promise<unknown>>;
};
const run = mod.childCases?.[match[2]!];
if (!run) throw new Error(`unknown child case ${kind}`);
const result = await run(payload);
process.stdout.write(`${JSON.stringify({ result, maxRssBytes: peakRssBytes() })}\n`);
