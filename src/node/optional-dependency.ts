/**
 * The Node media stack is optional: sharp, libheif-js, file-type, the S3 client, commander, cli-progress
 * and the bundled ffmpeg/ffprobe are optional peer dependencies of `happy-media`, so an app that uses only
 * the universal or web entry installs none of them (`happy-media-cli` brings them all, see
 * docs/architecture.md). Each is imported where it is first needed, through {@link importOptional}, so a
 * missing one is a {@link MissingDependencyError} that names the package and how to install it, not a
 * module-resolution stack trace.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { MissingDependencyError } from '../core/errors.js';

/** The version range of `name` this package declares (its peer dependency), e.g. `^0.35.5`. */
function declaredRange(name: string): string | undefined {
  try {
    const manifest = createRequire(import.meta.url)('happy-media/package.json') as {
      peerDependencies?: Record<string, string>;
    };
    return manifest.peerDependencies?.[name];
  } catch {
    return undefined;
  }
}

/**
 * The error for a missing optional package: what needed it, and the two ways to get it.
 *
 * @example
 * ```ts
 * throw missingDependency('sharp', 'probing images');
 * // MissingDependencyError: probing images needs the package sharp, which is not installed: ...
 * ```
 */
export function missingDependency(name: string, purpose: string, cause?: unknown): MissingDependencyError {
  const range = declaredRange(name);
  const spec = range === undefined ? name : `${name}@${range}`;
  return new MissingDependencyError(
    name,
    `${purpose} needs the package ${name}, which is not installed: add it beside happy-media ` +
      `(npm install "${spec}"), or install happy-media-cli, which brings the whole Node media stack`,
    cause === undefined ? undefined : { cause },
  );
}

/** True when `error` says that the package `name` itself cannot be found (not one of its own imports). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`'${name}/`));
}

/**
 * Runs `load` (an `import()` of the optional package `name`) and turns "package not installed" into a
 * {@link MissingDependencyError}; any other failure (say, a native binary that does not load) is
 * rethrown as it is.
 *
 * @throws {MissingDependencyError} `ERR_DEPENDENCY_MISSING` when `name` is not installed.
 * @example
 * ```ts
 * const sharp = (await importOptional('sharp', 'probing images', () => import('sharp'))).default;
 * ```
 */
export async function importOptional<T>(name: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, name)) throw missingDependency(name, purpose, error);
    throw error;
  }
}
