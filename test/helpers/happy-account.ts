/**
 * A throwaway account and session on Happy's real server for a test: a fresh secret signs in and the
 * session is made as Happy's CLI makes one (`createHappyAccount`, what the demo uses), plus a bearer token
 * of the same account, the one a `HappyServerStore` or `--store happy+…` takes. The token comes from a
 * sign-in of its own (the library's internal `requestToken`): the demo needs none, and the library hands
 * out none, since an app with the secret stores through `HappyClient.attachmentStore`.
 */
import { createHappyAccount, type HappyAccount } from '../../src/cli/demo/happy-account.js';
import { HappyApi } from '../../src/core/happy/happy-api.js';
import { requestToken } from '../../src/core/happy/sign-in.js';

/** What {@link newHappyAccount} made: the demo's account and a bearer token of it. */
export interface TestHappyAccount extends HappyAccount {
  /** A bearer token of the account on this server (a secret too). */
  token: string;
}

/** A new account with one session on the server at `url`, and a token of it. */
export async function newHappyAccount(
  url: string,
  options: { name?: string } = {},
): Promise<TestHappyAccount> {
  const account = await createHappyAccount(url, options);
  return { ...account, token: await requestToken(new HappyApi({ url }), account.secret) };
}
