/**
 * Where happy-media keeps state between runs: `$XDG_STATE_HOME/happy-media/<name>`, else
 * `~/.local/state/happy-media/<name>` (the XDG Base Directory default). Every private record of the
 * library lives below it: the crash records of temp files (`pending/`), the journals of resumable sends
 * (`uploads/`), the media server's held uploads (`serve/uploads/`).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The directory `name` (one or more segments) of happy-media's state. */
export function stateDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME ? resolve(env.XDG_STATE_HOME) : join(homedir(), '.local', 'state');
  return join(stateHome, 'happy-media', name);
}
