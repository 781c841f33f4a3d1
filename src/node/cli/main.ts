/**
 * The `happy-media` command line: builds the program from one module per command.
 *
 * @module
 */
import { Command, CommanderError } from 'commander';
import { registerBench } from './commands/bench.js';
import { registerDecrypt } from './commands/decrypt.js';
import { registerDemo } from './commands/demo.js';
import { registerEncrypt } from './commands/encrypt.js';
import { registerKeygen } from './commands/keygen.js';
import { registerOpen } from './commands/open.js';
import { registerPlay } from './commands/play.js';
import { registerProbe } from './commands/probe.js';
import { registerSeal } from './commands/seal.js';
import { registerSend } from './commands/send.js';
import { registerServe } from './commands/serve.js';
import { registerValidate } from './commands/validate.js';
import { EXIT_USAGE, reportCliError } from './run-action.js';

/** Builds the commander program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('happy-media')
    .description('End-to-end encrypted media and Session Protocol v2 for Happy')
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({
    // Commander's own usage errors get our one-line format too.
    outputError: (text, write) => write(`happy-media: ERR_USAGE: ${text.replace(/^error: /, '').trim()}\n`),
  });
  for (const register of [
    registerDemo,
    registerValidate,
    registerKeygen,
    registerSeal,
    registerOpen,
    registerEncrypt,
    registerDecrypt,
    registerProbe,
    registerServe,
    registerSend,
    registerPlay,
    registerBench,
  ]) {
    register(program);
  }
  // Every subcommand inherits the usage-error behaviour.
  for (const command of program.commands) command.exitOverride().showHelpAfterError();
  return program;
}

/** Runs the CLI with the given argv (defaults to `process.argv`). Resolves when the command is done. */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; usage errors with 2.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    reportCliError(error);
  }
}
