/**
 * The `happy-media` command line: builds the program from one module per command.
 *
 * Only the module of the command being run is imported. Loading every command up front pulled sharp,
 * the S3 client and ffmpeg glue into `happy-media validate` and `--help` (most of a start's CPU time),
 * so the top-level listing uses the summaries below and a command's own module (its options,
 * its `--help`, its action) is imported only when that command is named. The same holds for the crash
 * sweep and the forwarding of signals to ffmpeg children (they load the Node entry) and the error
 * formatting (it loads the library's errors): all are imported on demand, so the top-level `--help` loads
 * commander and the error classes its stdout guard needs, not the library.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { importOptional } from '../node/optional-dependency.js';
import { EXIT_USAGE } from './exit-codes.js';

/**
 * commander, an optional peer of happy-media (happy-media-cli brings it): imported here, first thing, so
 * a library-only install that runs the bin gets one ERR_DEPENDENCY_MISSING line saying what to install.
 * Commands make options with `command.createOption`, never import a value from commander: in the one-file
 * CLI (scripts/bundle-cli.mjs) such an import is hoisted to the top and would load commander before this.
 */
function loadCommander(): Promise<typeof import('commander')> {
  return importOptional('commander', 'the happy-media command line', () => import('commander'));
}

/** Registers one command (its options, help and action) on the program. */
type Register = (program: Command) => void;

/** A command known to the CLI: a one-line summary for the listing and a loader for its module. */
interface CommandEntry {
  summary: string;
  load: () => Promise<Register>;
}

/** Every command, in the order `--help` lists them. */
const COMMANDS: Record<string, CommandEntry> = {
  demo: {
    summary: 'run the whole mission on an embedded store and check every step',
    load: async () => (await import('./commands/demo.js')).registerDemo,
  },
  validate: {
    summary: 'check a Session Protocol v2 stream (JSON Lines)',
    load: async () => (await import('./commands/validate.js')).registerValidate,
  },
  map: {
    summary: "map an agent's output (Claude Code, Codex, ACP) or Happy's stored records into a v2 stream",
    load: async () => (await import('./commands/map.js')).registerMap,
  },
  keygen: {
    summary: 'print (or write) a fresh random 32-byte key',
    load: async () => (await import('./commands/keygen.js')).registerKeygen,
  },
  seal: {
    summary: 'encrypt a v2 message into a Happy envelope {"t":"encrypted","c":...}',
    load: async () => (await import('./commands/seal.js')).registerSeal,
  },
  open: {
    summary: 'decrypt a Happy envelope and print the v2 message inside',
    load: async () => (await import('./commands/open.js')).registerOpen,
  },
  encrypt: {
    summary: 'encrypt a file as a media blob (Cobblestone-256, or Happy v1)',
    load: async () => (await import('./commands/encrypt.js')).registerEncrypt,
  },
  decrypt: {
    summary: 'decrypt a media blob (whole or a range); output only after full verification',
    load: async () => (await import('./commands/decrypt.js')).registerDecrypt,
  },
  probe: {
    summary: 'print kind, MIME type, dimensions, duration and thumbhash of files',
    load: async () => (await import('./commands/probe.js')).registerProbe,
  },
  serve: {
    summary: 'serve encrypted blobs over HTTP with Range support',
    load: async () => (await import('./commands/serve.js')).registerServe,
  },
  send: {
    summary: 'probe, encrypt and upload a file; print its v2 message (and envelope)',
    load: async () => (await import('./commands/send.js')).registerSend,
  },
  play: {
    summary: 'download, verify and decrypt a media message to a private file (or stream it)',
    load: async () => (await import('./commands/play.js')).registerPlay,
  },
  account: {
    summary: "your Happy account's secret file: create, import, show it for Happy's app",
    load: async () => (await import('./commands/account.js')).registerAccount,
  },
  sessions: {
    summary: "list the account's sessions on Happy's server, or create one",
    load: async () => (await import('./commands/sessions.js')).registerSessions,
  },
  transcript: {
    summary: "read a session back from Happy's server as v2 JSON lines",
    load: async () => (await import('./commands/transcript.js')).registerTranscript,
  },
};

/** Names of every command, in listing order. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The command named in `args` (user arguments, without node and script), also for `help <command>`. */
function commandNamed(args: string[]): string | undefined {
  const first = args[0];
  if (first === 'help') return args[1] !== undefined && args[1] in COMMANDS ? args[1] : undefined;
  return first !== undefined && first in COMMANDS ? first : undefined;
}

/** Our own version, read through the package's self-reference (the same from src/ and dist/). */
function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('happy-media/package.json') as { version: string };
  return manifest.version;
}

/**
 * Builds the commander program. With `only`, that command is fully registered and the others are
 * listed by summary; without it, every command is fully registered (slower; for tests and tooling).
 */
export async function buildProgram(only?: string): Promise<Command> {
  const { Command } = await loadCommander();
  const program = new Command('happy-media')
    .description('End-to-end encrypted media and Session Protocol v2 for Happy')
    .version(packageVersion(), '-V, --version', 'print the version of happy-media')
    // Program options only before the command name: `probe --version` is the probe's own option.
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({
    // Commander's own usage errors get our one-line format too.
    outputError: (text, write) => write(`happy-media: ERR_USAGE: ${text.replace(/^error: /, '').trim()}\n`),
  });
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (only === undefined || only === name) {
      (await entry.load())(program);
    } else {
      // Listed for the top-level help only; never reached, since naming it loads the real module.
      program.command(name).description(entry.summary);
    }
  }
  // Every subcommand inherits the usage-error behaviour.
  for (const command of program.commands) command.exitOverride().showHelpAfterError();
  return program;
}

/** Runs the CLI with the given argv (defaults to `process.argv`). Resolves when the command is done. */
export async function main(argv: string[] = process.argv): Promise<void> {
  let commander: typeof import('commander') | undefined;
  try {
    commander = await loadCommander();
    const named = commandNamed(argv.slice(2));
    if (named !== undefined) {
      // Before the command runs: SIGTERM, SIGINT and SIGHUP kill ffprobe/ffmpeg before the CLI dies by
      // them (only while one runs), and plaintext a killed run left behind must not survive this one.
      // Only when a command is named: both load the Node entry, and the top-level `--help` starts no
      // child and loads no library.
      const { forwardSignalsToChildren } = await import('../node/index.js');
      forwardSignalsToChildren();
      const { sweepCrashLeftovers } = await import('./crash-sweep.js');
      sweepCrashLeftovers();
    }
    const program = await buildProgram(named ?? '');
    await program.parseAsync(argv);
  } catch (error) {
    if (commander !== undefined && error instanceof commander.CommanderError) {
      // --help and --version end with exit code 0; usage errors with 2.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    // Loaded only on failure: it imports the library's error classes, which `--help` does not need.
    const { reportCliError } = await import('./run-action.js');
    reportCliError(error);
  }
}
