/**
 * `happy-media sessions [--happy URL] [--secret-file PATH]`: the account's sessions on Happy's server,
 * newest first, one JSON line each: `id`, `variant` (`datakey` or `legacy`), `active`, `createdAt`,
 * `updatedAt`, and from the session's metadata (when the secret opens it) `name`, `path`, `host` and
 * `summary`.
 *
 * @module
 */
import type { Command } from 'commander';
import { addHappyOptions, connectHappy, type HappyFlags } from '../happy-options.js';
import { runAction } from '../run-action.js';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Registers `sessions` on the program. */
export function registerSessions(program: Command): void {
  addHappyOptions(
    program
      .command('sessions')
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
          const metadata = session.metadata ?? {};
          const summary = metadata.summary as { text?: unknown } | undefined;
          const line = {
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
          process.stdout.write(`${JSON.stringify(line)}\n`);
        }
      }),
    );
}
