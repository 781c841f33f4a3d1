#!/usr/bin/env node
// A throwaway account and session on a Happy server, for tests and the demo:
//   node scripts/happy-account.mjs URL [--env] [--tag TAG]
// (createHappyAccount in src/node/demo/happy-account.ts, from the build: run `npm run build` first).
// Prints {"url","token","sessionId"} as JSON, or with --env as shell exports (HAPPY_MEDIA_HAPPY_SERVER_URL,
// HAPPY_MEDIA_TOKEN, HAPPY_MEDIA_SESSION). The token goes only to stdout: redirect it into a 0600 file.
import { createHappyAccount } from '../dist/src/node/demo/happy-account.js';

const args = process.argv.slice(2);
const url = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--tag');
const tagAt = args.indexOf('--tag');
if (!url) {
  process.stderr.write('usage: node scripts/happy-account.mjs URL [--env] [--tag TAG]\n');
  process.exit(2);
}
try {
  const account = await createHappyAccount(url, tagAt >= 0 ? { tag: args[tagAt + 1] } : {});
  if (args.includes('--env')) {
    process.stdout.write(
      `export HAPPY_MEDIA_HAPPY_SERVER_URL=${account.url}\nexport HAPPY_MEDIA_TOKEN=${account.token}\nexport HAPPY_MEDIA_SESSION=${account.sessionId}\n`,
    );
  } else {
    process.stdout.write(`${JSON.stringify(account)}\n`);
  }
} catch (error) {
  process.stderr.write(`happy-account: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
