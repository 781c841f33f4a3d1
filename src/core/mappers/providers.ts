/**
 * The registry of provider mappers: the list `happy-media map --from NAME` and
 * {@link createAgentMapper} look names up in. Adding a provider is one file (its
 * {@link MapperProvider}) and one line in {@link MAPPER_PROVIDERS}.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';
import { acpProvider } from './acp/acp-provider.js';
import { claudeMapperProvider } from './claude/claude-provider.js';
import { codexProvider } from './codex/codex-provider.js';
import { createHappyRecordsProvider } from './happy/happy-records.js';
import type { MapperProvider } from './mapper-provider.js';

/** Every built-in provider, in the order `--help` lists them. */
export const MAPPER_PROVIDERS: readonly MapperProvider[] = [
  claudeMapperProvider,
  codexProvider,
  acpProvider,
  createHappyRecordsProvider({ legacyProvider: legacyProviderFor }),
];

/** Names of every built-in provider. */
export function mapperProviderNames(): string[] {
  return MAPPER_PROVIDERS.map((provider) => provider.name);
}

/**
 * The built-in provider called `name`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` naming the known providers when there is none by that name.
 * @example
 * ```ts
 * getMapperProvider('claude').summary;
 * ```
 */
export function getMapperProvider(name: string): MapperProvider {
  const provider = MAPPER_PROVIDERS.find((candidate) => candidate.name === name);
  if (provider === undefined) {
    throw new InvalidArgumentError(
      `expected one of ${
        mapperProviderNames()
          .map((known) => `"${known}"`)
          .join(', ') || 'no providers'
      } for \`provider\` but received ${typeof name === 'string' ? `"${name.slice(0, 40)}"` : typeof name}`,
    );
  }
  return provider;
}

/** The built-in provider that reads Happy's legacy agent records of `content.type` = `contentType`, if any. */
export function legacyProviderFor(contentType: string): MapperProvider | undefined {
  return MAPPER_PROVIDERS.find((provider) => provider.legacyContentType === contentType);
}
