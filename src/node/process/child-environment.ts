/**
 * The environment every child process gets: the parent's, minus its secrets. ffprobe, ffmpeg, the
 * desktop opener of `play --open` and the player it starts (which outlives the CLI) need `PATH`,
 * `HOME`, `DISPLAY`, locale and the like, but never a key or a token: a child's environment is readable
 * by the child, by anything it starts, and through `/proc/<pid>/environ` by the same user.
 *
 * One list, in one place ({@link SECRET_ENV_VARIABLES}), plus a rule for names added later
 * ({@link isSecretVariable}): any `HAPPY_MEDIA_…` or `AWS_…` variable whose name mentions a key, token,
 * secret, password or credential (so `HAPPY_MEDIA_SECRET_FILE` and the like are covered the day they
 * appear). Every spawn in the library and the CLI takes its `env` from {@link childEnvironment}; an
 * application's own spawns can too.
 *
 * @module
 */

/**
 * Secret variables the project reads (or the AWS SDK reads for the S3 store), removed from every
 * child's environment.
 */
export const SECRET_ENV_VARIABLES: readonly string[] = [
  // Keys and tokens of the CLI (`--key`, `--seal-key`, `--token` alternatives).
  'HAPPY_MEDIA_KEY',
  'HAPPY_MEDIA_SEAL_KEY',
  'HAPPY_MEDIA_TOKEN',
  // The account secret and where it is kept (Happy's server commands).
  'HAPPY_MEDIA_SECRET',
  'HAPPY_MEDIA_SECRET_FILE',
  // S3 credentials, read by the AWS SDK.
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
];

/** Names of secrets added after this list: `HAPPY_MEDIA_*` / `AWS_*` names that mention one. */
const SECRET_NAME =
  /^(?:HAPPY_MEDIA|AWS)_(?:.*_)?(?:KEY|TOKEN|SECRET|PASSWORD|PASSPHRASE|CREDENTIALS?)(?:_|$)/i;

/**
 * True when `name` is a secret that must not reach a child process.
 *
 * @example
 * ```ts
 * isSecretVariable('HAPPY_MEDIA_KEY');         // true
 * isSecretVariable('HAPPY_MEDIA_SECRET_FILE'); // true
 * isSecretVariable('HAPPY_MEDIA_STORE');       // false
 * ```
 */
export function isSecretVariable(name: string): boolean {
  return SECRET_ENV_VARIABLES.includes(name.toUpperCase()) || SECRET_NAME.test(name);
}

/**
 * A copy of `env` (default: this process's environment) without its secrets, for `spawn`'s `env`.
 *
 * @example
 * ```ts
 * spawn(binary, args, { env: childEnvironment() });
 * ```
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretVariable(name)) out[name] = value;
  }
  return out;
}
