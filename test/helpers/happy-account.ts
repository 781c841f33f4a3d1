/**
 * A throwaway account and session on Happy's real server for a test: a fresh secret signs in and the
 * session is made as Happy's CLI makes one (`createHappyAccount`, what the demo uses). The token is the
 * one a `HappyServerStore` or `--store happy+…` takes.
 */
import { createHappyAccount, type HappyAccount } from '../../src/cli/demo/happy-account.js';

/** A new account with one session on the server at `url`. */
export function newHappyAccount(url: string, options: { name?: string } = {}): Promise<HappyAccount> {
  return createHappyAccount(url, options);
}
