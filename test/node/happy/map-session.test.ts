/**
 * `happy-media map … --session ID` against Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped
 * without it): Claude, Codex and ACP logs with images mapped into sessions, read back (valid, folded,
 * each photo's blob the log's image byte for byte), the ids those of the same log mapped to stdout; a
 * second run, and the same log on stdin, append nothing and upload nothing; `--follow` on a growing file,
 * stopped by SIGINT in the middle and started again, ends with what a one-shot map writes; a truncated
 * and a replaced log are followed with a note; every bad input is refused with nothing appended.
 * With HAPPY_MEDIA_CORPUS, real Claude Code logs and the ACP protocol's own examples too, read where
 * they lie.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { formatAccountSecret } from '../../../src/happy.js';
import {
  createAgentMapper,
  foldTranscript,
  type HappyClient,
  type HappySession,
  type SessionMessage,
  validateStream,
} from '../../../src/index.js';
import { openMedia } from '../../../src/node/playback/index.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { corpusPath, hasCorpus } from '../../helpers/corpus.js';
import { newHappyAccount } from '../../helpers/happy-account.js';
import { makeTempDir } from '../../helpers/tmp.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "map-session.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh and source DIR/env)",
  );
}

const FIXTURES = new URL('../../fixtures/mappers/', import.meta.url).pathname;
const CLAUDE = join(FIXTURES, 'claude/session-images.jsonl');
const CODEX = join(FIXTURES, 'codex/rollout.jsonl');
const ACP = join(FIXTURES, 'acp/prompt-turn.jsonl');

/** Every base64 image of a log (`"data": "…"` of image blocks, and data URLs), decoded. */
async function imagesOf(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  const found = [
    ...[...text.matchAll(/"type":\s*"image"[^}]*?"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => m[1]!),
    ...[...text.matchAll(/"source":\s*\{[^}]*"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => m[1]!),
    ...[...text.matchAll(/data:image\/[a-z]+;base64,([A-Za-z0-9+/=]+)/g)].map((m) => m[1]!),
  ];
  return [...new Set(found)].map((b64) => Buffer.from(fromBase64(b64)).toString('hex'));
}

/** The ids a mapper writes for these lines without ending the stream (content ids: no session, no run). */
async function idsOfLines(provider: string, lines: readonly string[]): Promise<string[]> {
  const mapper = createAgentMapper(provider);
  const ids: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    for (const message of await mapper.push(JSON.parse(line))) ids.push(message.id);
  }
  return ids;
}

const linesOf = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim());

/** Runs `map` in the background (for --follow), collecting stderr. */
function startMap(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI_BIN, 'map', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const err: Buffer[] = [];
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  child.stdout?.resume();
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => Buffer.concat(err).toString('utf8'), exit };
}

describe.skipIf(!SERVER)("happy-media map into a session on Happy's real server", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let client: HappyClient;
  let env: NodeJS.ProcessEnv;
  const p = (name: string) => join(tmp.dir, name);
  const newSession = (name: string) =>
    client.createSession({ metadata: { path: tmp.dir, host: 'test', name } });
  const messagesOf = async (session: HappySession) => {
    const messages: SessionMessage[] = [];
    for await (const record of client.readMessages(session)) messages.push(...record.messages);
    return messages;
  };
  const map = (args: string[], input?: string) =>
    runCli(['map', ...args], { env, timeoutMs: 120_000, ...(input === undefined ? {} : { input }) });
  /** Waits until the session holds exactly `ids` (in order); returns how long it took. */
  const waitForIds = async (session: HappySession, ids: readonly string[], what: string) => {
    const started = Date.now();
    let last: string[] = [];
    while (Date.now() - started < 60_000) {
      last = (await messagesOf(session)).map((m) => m.id);
      if (last.length >= ids.length) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(last, what).toEqual(ids);
    return Date.now() - started;
  };

  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-map-session-');
    const account = await newHappyAccount(SERVER as string);
    client = account.client;
    const secretFile = p('secret');
    await writeFile(secretFile, `${formatAccountSecret(account.secret)}\n`, { mode: 0o600 });
    env = {
      HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER,
      HAPPY_MEDIA_SECRET_FILE: secretFile,
      HAPPY_MEDIA_SESSION: '',
      XDG_CONFIG_HOME: p('config'),
    };
  }, 60_000);
  afterAll(async () => tmp?.cleanup());

  for (const [label, file, provider, photos, uploads] of [
    ['Claude Code session log', CLAUDE, 'claude', 3, 3],
    ['Codex rollout', CODEX, 'codex', 2, 2],
    ['ACP session', ACP, 'acp', 3, 4],
  ] as const) {
    it(`${label}: every message in order, each image uploaded as a photo of the log's bytes; again and from stdin, nothing more`, async () => {
      const session = await newSession(label);
      const first = await map([file, '--session', session.id]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain(`read with --from ${provider}`);
      expect(first.stderr).toMatch(
        new RegExp(`messages? appended to session ${session.id} \\(last seq \\d+\\); ${uploads} uploads?`),
      );

      const messages = await messagesOf(session);
      expect(validateStream(messages, { requireTurnStart: true })).toEqual([]);
      // The ids are the log's: the same as the stream printed without a session (images there are notes).
      const printed = (await map([file])).stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect(messages.map((m) => m.id)).toEqual(printed);
      const folded = foldTranscript(messages);
      expect(folded.turns.size).toBeGreaterThan(0);
      expect([...folded.turns.values()].every((turn) => turn.status !== 'open')).toBe(true);
      expect([...folded.calls.values()].every((call) => call.status !== 'running')).toBe(true);

      // Each photo was uploaded before it was appended, and its blob is an image of the log.
      const originals = await imagesOf(file);
      const shown = messages.filter(
        (m): m is Extract<SessionMessage, { type: 'photo' }> => m.type === 'photo',
      );
      expect(shown).toHaveLength(photos);
      for (const photo of shown) {
        const media = await openMedia(photo, {
          store: client.attachmentStore(session),
          blobKey: session.blobKey,
        });
        try {
          expect(originals).toContain((await readFile(media.path)).toString('hex'));
        } finally {
          await media.dispose();
        }
      }

      const again = await map([file, '--session', session.id]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(
        `0 messages appended to session ${session.id}; ${messages.length} already there; 0 uploads`,
      );
      const fromStdin = await map(['-', '--session', session.id], await readFile(file, 'utf8'));
      expect(fromStdin.code, fromStdin.stderr).toBe(0);
      expect(fromStdin.stderr).toContain(`stdin: `);
      expect(fromStdin.stderr).toContain(
        `0 messages appended to session ${session.id}; ${messages.length} already there; 0 uploads`,
      );
      expect((await messagesOf(session)).map((m) => m.id)).toEqual(printed);
    }, 180_000);
  }

  it('stdin into a new session: the same messages as the file', async () => {
    const session = await newSession('stdin');
    const r = await map(['-', '--session', session.id], await readFile(CODEX, 'utf8'));
    expect(r.code, r.stderr).toBe(0);
    const printed = (await map([CODEX])).stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect((await messagesOf(session)).map((m) => m.id)).toEqual(printed);
  }, 120_000);

  it('--follow on a growing log, stopped by SIGINT in the middle and started again, ends as a one-shot map', async () => {
    const lines = await linesOf(CLAUDE);
    const log = p('growing.jsonl');
    await writeFile(log, `${lines.slice(0, 3).join('\n')}\n`);
    const session = await newSession('follow');
    const latencies: number[] = [];

    const firstRun = startMap([log, '--follow', '--session', session.id], env);
    await waitForIds(session, await idsOfLines('claude', lines.slice(0, 3)), 'the first 3 lines');
    for (let n = 4; n <= 6; n++) {
      await appendFile(log, `${lines[n - 1]}\n`);
      latencies.push(await waitForIds(session, await idsOfLines('claude', lines.slice(0, n)), `line ${n}`));
    }
    firstRun.child.kill('SIGINT');
    expect(await firstRun.exit, firstRun.stderr()).toBe(0);
    expect(firstRun.stderr()).toContain('stopped; the open turn stays open');
    // Stopping wrote nothing more: the turn is still open (no end was written).
    expect((await messagesOf(session)).map((m) => m.id)).toEqual(
      await idsOfLines('claude', lines.slice(0, 6)),
    );

    // Lines written while nothing follows, then more while the second run follows.
    await appendFile(log, `${lines.slice(6, 8).join('\n')}\n`);
    const secondRun = startMap([log, '--follow', '--session', session.id], env);
    await waitForIds(
      session,
      await idsOfLines('claude', lines.slice(0, 8)),
      'lines 7-8, written while stopped',
    );
    for (let n = 9; n <= lines.length; n++) {
      await appendFile(log, `${lines[n - 1]}\n`);
      latencies.push(await waitForIds(session, await idsOfLines('claude', lines.slice(0, n)), `line ${n}`));
    }
    secondRun.child.kill('SIGTERM');
    expect(await secondRun.exit, secondRun.stderr()).toBe(0);
    console.info(
      `map --follow: a line's messages were in the session after ${latencies.join(', ')} ms (polled every 200 ms)`,
    );

    // The log is complete: a one-shot map ends it, and the session is what a one-shot map alone writes.
    const ended = await map([log, '--session', session.id]);
    expect(ended.code, ended.stderr).toBe(0);
    const oneShot = await newSession('one shot');
    expect((await map([CLAUDE, '--session', oneShot.id])).code).toBe(0);
    const followed = await messagesOf(session);
    expect(followed.map((m) => m.id)).toEqual((await messagesOf(oneShot)).map((m) => m.id));
    expect(followed.map((m) => m.type)).toEqual((await messagesOf(oneShot)).map((m) => m.type));
    expect(validateStream(followed, { requireTurnStart: true })).toEqual([]);
  }, 300_000);

  it('--follow says when the log is truncated or replaced, and maps what comes after', async () => {
    const lines = await linesOf(ACP);
    const log = p('rotated.jsonl');
    await writeFile(log, `${lines.slice(0, 6).join('\n')}\n`);
    const session = await newSession('rotation');
    const run = startMap([log, '--follow', '--from', 'acp', '--session', session.id], env);
    const count = async () => (await messagesOf(session)).length;
    const waitForMore = async (than: number) => {
      for (let i = 0; i < 300 && (await count()) <= than; i++) await new Promise((r) => setTimeout(r, 200));
      expect(await count()).toBeGreaterThan(than);
    };
    await waitForMore(0);
    const before = await count();
    // Truncated below what was read (a follower can tell only by the size), then written again.
    await writeFile(log, '');
    for (let i = 0; i < 100 && !run.stderr().includes('was truncated'); i++)
      await new Promise((r) => setTimeout(r, 100));
    await writeFile(log, `${lines.slice(6, 12).join('\n')}\n`);
    await waitForMore(before);
    const afterTruncation = await count();
    await rename(log, `${log}.1`);
    await writeFile(log, `${lines.slice(12).join('\n')}\n`);
    await waitForMore(afterTruncation);
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toContain(`happy-media map: ${log} was truncated`);
    expect(run.stderr()).toContain(
      `happy-media map: ${log} was replaced by a new file (rotated): reading the new one from its start`,
    );
    expect(validateStream(await messagesOf(session), { requireTurnStart: true })).toEqual([]);
  }, 180_000);

  it('a log that grew after a map ended its turn is refused, appending nothing, with the flags that fit in a hint', async () => {
    const lines = await linesOf(CLAUDE);
    const log = p('grown.jsonl');
    await writeFile(log, `${lines.slice(0, 8).join('\n')}\n`);
    const session = await newSession('grown');
    const first = await map([log, '--session', session.id]);
    expect(first.code, first.stderr).toBe(0);
    const before = (await messagesOf(session)).map((m) => m.id);
    await appendFile(log, `${lines.slice(8).join('\n')}\n`);
    const grown = await map([log, '--session', session.id]);
    expect(grown.code, grown.stderr).toBe(1);
    expect(grown.stderr).toMatch(/ERR_STREAM_INVALID: session \S+ holds the end of this log's last turn/);
    expect(grown.stderr).toContain('happy-media: hint: map a log that is still being written with --follow');
    expect((await messagesOf(session)).map((m) => m.id)).toEqual(before);
  }, 120_000);

  it('refuses each bad input with its error, and appends nothing', async () => {
    const session = await newSession('refusals');
    const keyFile = p('blob.key');
    await runCli(['keygen', '--out', keyFile]);
    const unknown = p('unknown.jsonl');
    await writeFile(unknown, '{"hello":"world"}\n{"n":2}\n');
    const cases: [string, string[], RegExp, string?][] = [
      [
        'a --from the log contradicts',
        [CODEX, '--from', 'claude', '--session', session.id],
        /ERR_USAGE: .* looks like a Codex session rollout, which --from codex reads, not --from claude: nothing was mapped/,
      ],
      [
        'a log of no known agent',
        [unknown, '--session', session.id],
        /ERR_USAGE: cannot tell which agent wrote .*unknown.jsonl from its first 2 events: pass --from claude, codex or acp/,
      ],
      [
        '--follow on stdin',
        ['-', '--follow', '--session', session.id],
        /ERR_USAGE: --follow reads a file as it grows/,
        '{}\n',
      ],
      [
        'keys beside a session',
        [CLAUDE, '--happy', SERVER as string, '--session', session.id, '--key-file', keyFile],
        /ERR_USAGE: --key-file cannot go with a session/,
      ],
      [
        "Happy's records into a session",
        [CLAUDE, '--from', 'happy', '--session', session.id],
        /ERR_USAGE: --from happy reads a session's stored records/,
      ],
      [
        'a log that is not there',
        [p('missing.jsonl'), '--session', session.id],
        /ERR_UNREADABLE_INPUT: cannot read ".*missing.jsonl"/,
      ],
      [
        'a keygen key as the secret',
        [CLAUDE, '--session', session.id, '--secret-file', keyFile],
        /ERR_USAGE: --secret-file ".*" holds a bare base64 32-byte key/,
      ],
      [
        "another account's session",
        [
          CLAUDE,
          '--session',
          (
            await (
              await newHappyAccount(SERVER as string)
            ).client.createSession({ metadata: { path: '/', host: 'x' } })
          ).id,
        ],
        /ERR_NOT_FOUND: /,
      ],
    ];
    for (const [what, args, error, input] of cases) {
      const r = await map(args, input);
      expect(r.code, `${what}: ${r.stderr}`).toBe(error.source.includes('ERR_USAGE') ? 2 : 1);
      expect(r.stderr, what).toMatch(error);
    }
    expect(await messagesOf(session)).toEqual([]);
  }, 240_000);

  describe.skipIf(!hasCorpus)('real logs of the corpus, read where they lie', () => {
    it('Claude Code session logs: valid, folded, and again nothing', async () => {
      const dir = corpusPath('protocol', 'happy', 'claude-jsonl');
      for (const name of [
        'utils__task_sdk.jsonl',
        'utils__task_non_sdk.jsonl',
        'utils__permission-prompt-aborted-with-interrupt.jsonl',
        'utils__1-continue-run-ls-tool.jsonl',
      ]) {
        const file = join(dir, name);
        const session = await newSession(name);
        const r = await map([file, '--session', session.id]);
        expect(r.code, `${name}: ${r.stderr}`).toBe(0);
        const messages = await messagesOf(session);
        expect(messages.length, name).toBeGreaterThan(0);
        expect(validateStream(messages, { requireTurnStart: true }), name).toEqual([]);
        expect(foldTranscript(messages).items.length, name).toBeGreaterThan(0);
        const again = await map([file, '--session', session.id]);
        expect(again.stderr, name).toContain(
          `0 messages appended to session ${session.id}; ${messages.length} already there`,
        );
      }
    }, 300_000);

    it("the ACP protocol's example prompt turn (one message per file) on stdin", async () => {
      const dir = corpusPath('protocol', 'acp', 'examples');
      const files = (await readdir(dir)).filter((f) => f.startsWith('prompt-turn__')).sort();
      const input = (
        await Promise.all(
          files.map(async (f) => JSON.stringify(JSON.parse(await readFile(join(dir, f), 'utf8')))),
        )
      ).join('\n');
      const session = await newSession('acp examples');
      const r = await map(['-', '--session', session.id], `${input}\n`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('read with --from acp');
      const messages = await messagesOf(session);
      expect(messages.length).toBeGreaterThan(0);
      expect(validateStream(messages, { requireTurnStart: true })).toEqual([]);
      const again = await map(['-', '--session', session.id], `${input}\n`);
      expect(again.stderr).toContain(
        `0 messages appended to session ${session.id}; ${messages.length} already there`,
      );
    }, 120_000);
  });
});
