/**
 * Happy's recorded Claude Code sessions as one log for the mappers suite: every Claude line of the
 * external corpus (`protocol/happy` under `HAPPY_MEDIA_CORPUS`, read where it lies): the session logs
 * Happy's tests recorded and the Claude lines inside Happy's app traces. They are real sessions' lines,
 * with a real session's mix of event kinds and payload sizes, where the generated logs write a few dozen
 * bytes of text an event; together they are a few hundred lines, so the log is that material repeated,
 * each round with ids of its own (nothing is a copy of an earlier line, as in one long session).
 *
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

type Json = Record<string, unknown>;

/** Happy's recorded material repeated into one log. */
export interface RecordedLog {
  /** The log's lines: {@link rounds} rounds of the recorded lines, each with its own ids. */
  lines: string[];
  /** How many recorded lines one round holds. */
  perRound: number;
  rounds: number;
  /** How many recorded sessions a round holds (log files and app traces). */
  sessions: number;
}

/** Not a session log: Happy's CLI debug log (the conformance suite reads the records inside it). */
const DEBUG_LOG = 'utils__duplicate-assistant-response-2.jsonl';

/**
 * Happy's recorded Claude Code lines under `corpusDir`, repeated until the log holds at least `events`
 * lines. Every uuid ends in the round's number and every message, tool use and request id carries it, so
 * one round's lines differ from every other's where a session's ids would, and only there.
 */
export async function recordedClaudeLog(corpusDir: string, events: number): Promise<RecordedLog> {
  const happy = join(corpusDir, 'protocol', 'happy');
  const sessions: string[][] = [];
  const logs = join(happy, 'claude-jsonl');
  for (const name of (await readdir(logs)).sort()) {
    if (!name.endsWith('.jsonl') || name === DEBUG_LOG) continue;
    const text = await readFile(join(logs, name), 'utf8');
    sessions.push(text.split('\n').filter((line) => line.trim().length > 0));
  }
  const traces = join(happy, 'app-traces');
  for (const name of (await readdir(traces)).sort()) {
    if (name.endsWith('.json')) sessions.push(traceClaudeLines(await readFile(join(traces, name), 'utf8')));
  }
  const round = sessions.flat();
  if (round.length === 0) throw new Error(`no recorded Claude Code lines under ${happy}`);
  const rounds = Math.ceil(events / round.length);
  // A round's number is written in a uuid's last four hex digits.
  if (rounds > 0x10000) throw new RangeError(`${events} events need ${rounds} rounds, more than 65,536`);
  const lines: string[] = [];
  for (let r = 0; r < rounds; r++) for (const line of round) lines.push(withRoundIds(line, r));
  return { lines, perRound: round.length, rounds, sessions: sessions.length };
}

/** The Claude lines of an app trace: the `data` of its legacy agent output records, as JSON text. */
function traceClaudeLines(text: string): string[] {
  // One of Happy's traces is cut before its closing bracket upstream.
  const trimmed = text.trimEnd();
  const records = JSON.parse(trimmed.endsWith(']') ? trimmed : `${trimmed}]`) as Json[];
  return records.flatMap((record) => {
    const content = record.content as Json | undefined;
    const output = content?.content as Json | undefined;
    return content?.role === 'agent' && output?.type === 'output' ? [JSON.stringify(output.data)] : [];
  });
}

const UUID = /\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{8})[0-9a-f]{4}\b/g;
const CLAUDE_ID = /"((?:msg|toolu|req)_[A-Za-z0-9]+)"/g;

/** `line` with the ids of round `r`: a uuid's last four hex digits are `r`, Claude's ids end in `-r`. */
function withRoundIds(line: string, r: number): string {
  const hex = r.toString(16).padStart(4, '0');
  return line
    .replace(UUID, (_, head: string) => head + hex)
    .replace(CLAUDE_ID, (_, id: string) => `"${id}-${r}"`);
}
