/**
 * `happy-media sessions [list]` and `happy-media sessions create`: the account's sessions on Happy's
 * server.
 *
 * `list` (the default): newest first, one JSON line each: `id`, `variant` (`datakey` or `legacy`),
 * `active`, `createdAt`, `updatedAt`, and from the session's metadata (when the secret opens it) `name`,
 * `path`, `host` and `summary`.
 *
 * `create [--name N] [--path P] [--tag T] [--flavor F]`: a new session made as Happy's CLI makes one (a
 * fresh data key boxed for the account, metadata sealed with it: `path`, `host`, `os`, `homeDir`, as
 * `createSessionMetadata` in happy-cli writes them), so Happy's app lists and opens it. The app titles a
 * session by its `summary`, so `--name` sets both `name` and `summary`. Prints the session's line (or,
 * with `--env`, `export HAPPY_MEDIA_SESSION=…`).
 *
 * @module
 */
import { homedir, hostname, platform } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { HappySessionInfo, HappySessionMetadata } from '../../node/index.js';
import { addHappyOptions, connectHappy, type HappyFlags, SESSION_ENV_VARIABLE } from '../happy-options.js';
import { jsonLine } from '../json-line.js';
import { runAction } from '../run-action.js';
import { shellQuote } from '../shell-quote.js';

interface CreateFlags extends HappyFlags {
  name?: string;
  path?: string;
  tag?: string;
  flavor?: string;
  env?: boolean;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What `sessions` prints of a session: one JSON object. */
function sessionLine(session: HappySessionInfo): Record<string, unknown> {
  const metadata = session.metadata ?? {};
  const summary = metadata.summary as { text?: unknown } | undefined;
  return {
    id: session.id,
    variant: session.variant,
    active: session.active,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    name: text(metadata.name),
    path: text(metadata.path),
    host: text(metadata.host),
    summary: text(summary?.text),
  };
}

/** The metadata of a new session, as Happy's CLI writes it (the fields a session made here can know). */
function newSessionMetadata(flags: CreateFlags): HappySessionMetadata {
  const path = resolve(flags.path ?? process.cwd());
  const name = flags.name?.trim() || undefined;
  return {
    path,
    host: hostname(),
    os: platform(),
    homeDir: homedir(),
    startedBy: 'terminal',
    ...(name === undefined ? {} : { name, summary: { text: name, updatedAt: Date.now() } }),
    ...(flags.flavor === undefined ? {} : { flavor: flags.flavor }),
  };
}

/** Registers `sessions` (list, create) on the program. */
export function registerSessions(program: Command): void {
  const sessions = program
    .command('sessions')
    .description("the account's sessions on Happy's server: list them (the default), or create one");
  addHappyOptions(
    sessions
      .command('list', { isDefault: true })
      .description("list the account's sessions on Happy's server (JSON lines, newest first)"),
  )
    .addHelpText(
      'after',
      '\nExample:\n  $ happy-media sessions --happy https://api.cluster-fluster.com --secret-file ~/.happy/access.key\n' +
        '  {"id":"cmx6k89sd00016q7dnk5axjpq","variant":"datakey","active":false,"createdAt":…,"updatedAt":…,"name":"my project","path":"/home/me/project","host":"laptop"}',
    )
    .action(
      runAction(async (flags: HappyFlags) => {
        const client = await connectHappy(flags);
        for (const session of await client.listSessions()) {
          process.stdout.write(jsonLine(sessionLine(session)));
        }
      }),
    );
  addHappyOptions(
    sessions
      .command('create')
      .description("create a session as Happy's CLI does (Happy's app lists and opens it); print its line")
      .option('--name <name>', "the session's title in Happy's app")
      .option('--path <dir>', 'the working directory it is about (default: the current one)')
      .option('--tag <tag>', 'a tag of your own: creating with a tag used before returns that session')
      .option('--flavor <agent>', "the agent it shows (claude, codex, gemini, …: the icon in Happy's app)")
      .option('--env', `print export ${SESSION_ENV_VARIABLE}=… instead of the JSON line`),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ happy-media sessions create --name "screenshots of the build"\n' +
        '  {"id":"cmx6k89sd00016q7dnk5axjpq","variant":"datakey","active":false,…,"name":"screenshots of the build",…}\n' +
        '  $ eval "$(happy-media sessions create --name build --env)"    # sets HAPPY_MEDIA_SESSION',
    )
    .action(
      runAction(async (flags: CreateFlags) => {
        const client = await connectHappy(flags);
        const session = await client.createSession({
          metadata: newSessionMetadata(flags),
          ...(flags.tag === undefined ? {} : { tag: flags.tag }),
        });
        process.stdout.write(
          flags.env
            ? `export ${SESSION_ENV_VARIABLE}=${shellQuote(session.id)}\n`
            : jsonLine(sessionLine(session)),
        );
      }),
    );
}
