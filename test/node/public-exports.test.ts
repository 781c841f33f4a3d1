/**
 * Pins the public surface: the value exports of every entry (`happy-media`, its specialist subpaths
 * `happy-media/envelope`, `/blob`, `/happy`, `/mappers`, `/storage`, the root's `errors` namespace,
 * `happy-media/node`, `happy-media/web`, `happy-media/expo`), by name (docs/architecture.md, "Public surface"). Adding or removing an export must change this list on purpose, in the
 * same commit. Type-only exports vanish at run time; the type check of every caller covers those.
 */
import { existsSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Read as plain records: the test is about which names exist, not what they are.
const universal: Record<string, unknown> = await import('../../src/index.js');
const node: Record<string, unknown> = await import('../../src/node/index.js');
const expo: Record<string, unknown> = await import('../../src/expo/index.js');
const web: Record<string, unknown> = await import('../../src/web/index.js');
const subpaths: Record<string, Record<string, unknown>> = {
  envelope: await import('../../src/envelope.js'),
  blob: await import('../../src/blob.js'),
  happy: await import('../../src/happy.js'),
  mappers: await import('../../src/mappers.js'),
  storage: await import('../../src/storage.js'),
};

/** Value exports of the universal entry: at most 60, grouped by what a caller does (src/index.ts). */
const UNIVERSAL = [
  'HappyClient',
  'HappyMediaError',
  'HappyServerStore',
  'STREAM_RULES',
  'SessionMessageSchema',
  'THUMBHASH_MAX_SIDE',
  'appendAgentLog',
  'assertSessionMessage',
  'cipherModuleAesGcm',
  'createAgentMapper',
  'createMediaRef',
  'createMessageId',
  'createStreamValidator',
  'decryptV1Blob',
  'detectAgentLog',
  'downloadMedia',
  'encryptV1Blob',
  'errors',
  'fetchBlobSource',
  'fileMessage',
  'foldTranscript',
  'getMapperProvider',
  'getRuntime',
  'installRuntime',
  'isMediaRef',
  'isRef',
  'mapAgentOutput',
  'mapHappyRecords',
  'memorySink',
  'nobleAesGcm',
  'openMediaRandomAccess',
  'parseRef',
  'parseHappyCredentials',
  'parseSessionMessage',
  'permissionRequest',
  'permissionResponse',
  'photoMessage',
  'readJsonLines',
  'sendPickedMedia',
  'serviceMessage',
  'storedMediaSize',
  'storeRangeSource',
  'textMessage',
  'thumbhashFromImage',
  'thumbhashFromRgba',
  'thumbhashInputSize',
  'toMediaRequest',
  'toolCallEnd',
  'toolCallStart',
  'turnEnd',
  'turnStart',
  'validateStream',
  'videoMessage',
  'webCryptoAesGcm',
];

/** Value exports of each specialist subpath (`happy-media/<name>`). */
const SUBPATHS: Record<string, string[]> = {
  envelope: [
    'KEY_BYTES',
    'PUBLIC_KEY_BYTES',
    'boxDataKey',
    'boxForPublicKey',
    'contentKeyPair',
    'contentSeed',
    'createDataKey',
    'dataKey',
    'dataKeyCiphertextSize',
    'decryptDataKey',
    'decryptDataKeyAsync',
    'decryptJson',
    'decryptLegacy',
    'deriveChild',
    'deriveKey',
    'deriveRoot',
    'encryptDataKey',
    'encryptDataKeyAsync',
    'encryptJson',
    'encryptLegacy',
    'fromBase64',
    'legacyCiphertextSize',
    'legacyKey',
    'masterBlobKey',
    'openBoxForPublicKey',
    'openDataKeyBundle',
    'openMessage',
    'openMessageAsync',
    'openMessages',
    'openMessagesAsync',
    'openRaw',
    'openRawAsync',
    'parseEnvelope',
    'sealMessage',
    'sealMessageAsync',
    'sealMessages',
    'sealRaw',
    'sealRawAsync',
    'sessionBlobKey',
    'sessionKey',
    'toBase64',
  ],
  blob: [
    'bufferRangeSource',
    'ciphertextSize',
    'createDecryptStream',
    'createEncryptStream',
    'decryptBlob',
    'encryptBlob',
    'mediaBlobContext',
    'openBlobRandomAccess',
    'plaintextSize',
    'unboundBlobContext',
  ],
  happy: [
    'HAPPY_MAX_ATTACHMENT_BYTES',
    'HappyFileEventSchema',
    'V1_BLOB_MAX_PLAINTEXT_BYTES',
    'accountKeys',
    'createAccountSecret',
    'formatAccountSecret',
    'happyFileEvent',
    'openSessionKeys',
    'openSessionRecord',
    'parseAccountSecret',
    'parseHappyFileEvent',
    'sealSessionRecord',
    'unwrapSessionContent',
    'wrapForApp',
    'wrapForCli',
  ],
  mappers: [
    'CALL_UNFINISHED_ERROR',
    'MAPPER_PROVIDERS',
    'SKIP_REASONS',
    'SessionWriter',
    'describeMediaMessage',
  ],
  storage: ['assertWithinStoreLimit', 'checkBearerToken', 'createWithPut', 'mediaRefId'],
};

/** The root's `errors` namespace: every error class, and whether an error is ours or may be retried. */
const ERRORS = [
  'AbortedError',
  'DecryptionError',
  'DiskError',
  'FormatError',
  'HappyMediaError',
  'InternalError',
  'InvalidArgumentError',
  'LimitError',
  'MissingDependencyError',
  'NotSupportedError',
  'ProbeError',
  'SchemaError',
  'StorageError',
  'StreamError',
  'UnauthorizedError',
  'isHappyMediaError',
  'isRetryableError',
];

/** Value exports the Node entry adds to the universal ones. */
const NODE_ONLY = [
  'HAPPY_MAX_PLAINTEXT_BYTES',
  'HttpBlobStore',
  'LocalBlobStore',
  'MAX_CREDENTIALS_TEXT_LENGTH',
  'MediaCache',
  'PARALLEL_FILE_THRESHOLD',
  'S3BlobStore',
  'checkListenHost',
  'childEnvironment',
  'credentialsFromText',
  'forwardSignalsToChildren',
  'isMetadataStripRefusal',
  'sweepLeftovers',
  'writeAfterCompletion',
  'writeFileAllOrNothing',
  'writePlaintextRange',
  'createNodeDecryptStream',
  'createNodeEncryptStream',
  'decryptFile',
  'decryptFileParallel',
  'defaultBlobDir',
  'defaultCacheDir',
  'encryptFile',
  'encryptFileParallel',
  'ffmpegAvailability',
  'fileRangeSource',
  'nodeAesGcm',
  'nodeRuntime',
  'openMedia',
  'openStore',
  'privateFileSink',
  'probeMedia',
  'readHappyCredentialsFile',
  'readSentFile',
  'sendMedia',
  'sendMediaHandler',
  'sendToSession',
  'serveMedia',
  'startMediaServer',
];

/**
 * Universal names the Node entry replaces with its own of the same contract: `thumbhashFromImage` there
 * decodes every format sharp reads (and takes a path), where the universal one decodes JPEG and PNG.
 */
const NODE_REPLACED = ['thumbhashFromImage'];

/** Value exports of happy-media/web (the page's and the Service Worker's halves of streaming, a Blob sink). */
const WEB = ['blobSink', 'installMediaServiceWorker', 'openStreamingMedia', 'registerMediaServiceWorker'];

/** Value exports of happy-media/expo (an app's expo-file-system and expo-crypto glue). */
const EXPO = ['EXPO_CACHE_FOLDER', 'expoCryptoAesGcm', 'expoFileSink', 'expoFileSource', 'openExpoMedia'];

const sorted = (names: Iterable<string>) => [...names].sort();

describe('public exports', () => {
  it('the universal entry exports exactly the pinned names', () => {
    expect(sorted(Object.keys(universal))).toEqual(sorted(UNIVERSAL));
  });

  it('the Node entry exports every universal name plus the pinned Node names', () => {
    expect(sorted(Object.keys(node))).toEqual(sorted([...UNIVERSAL, ...NODE_ONLY]));
    // The same objects, not copies: `instanceof` and registries work across both entries.
    for (const name of UNIVERSAL) {
      if (NODE_REPLACED.includes(name)) expect(node[name], name).not.toBe(universal[name]);
      else expect(node[name], name).toBe(universal[name]);
    }
  });

  it('the universal entry stays at most 60 values', () => {
    expect(UNIVERSAL.length).toBeLessThanOrEqual(60);
  });

  it('each specialist subpath exports exactly its pinned names, none of them also at the root', () => {
    for (const [name, entry] of Object.entries(subpaths)) {
      expect(sorted(Object.keys(entry)), name).toEqual(sorted(SUBPATHS[name] ?? []));
      for (const value of Object.keys(entry)) expect(UNIVERSAL, `${name}.${value}`).not.toContain(value);
    }
  });

  it("the errors namespace holds every error class, the base class being the root's own", () => {
    const errors = universal.errors as Record<string, unknown>;
    expect(sorted(Object.keys(errors))).toEqual(sorted(ERRORS));
    expect(errors.HappyMediaError).toBe(universal.HappyMediaError);
  });

  it('happy-media/web exports exactly the pinned names', () => {
    expect(sorted(Object.keys(web))).toEqual(sorted(WEB));
  });

  it('happy-media/expo exports exactly the pinned names', () => {
    expect(sorted(Object.keys(expo))).toEqual(sorted(EXPO));
  });

  it('keeps internal helpers of bytes.ts out of the public surface', () => {
    for (const name of ['describeValue', 'joinBytes', 'utf8', 'fromUtf8', 'assertNonNegativeInteger']) {
      expect(Object.keys(node), name).not.toContain(name);
    }
  });

  it("lists every export by name: no `export *` in an entry or area index but the Node entry's one of the universal entry and the root's errors namespace", () => {
    const indexes = [
      'src/index.ts',
      'src/envelope.ts',
      'src/blob.ts',
      'src/happy.ts',
      'src/mappers.ts',
      'src/storage.ts',
      'src/errors.ts',
      'src/node/index.ts',
      'src/expo/index.ts',
      ...[
        'aes-gcm',
        'blob',
        'envelope',
        'happy',
        'mappers',
        'media',
        'playback',
        'protocol',
        'runtime',
        'storage',
        'transport',
      ].map((area) => `src/core/${area}/index.ts`),
      ...['blob', 'happy', 'media', 'playback', 'runtime', 'send', 'storage'].map(
        (area) => `src/node/${area}/index.ts`,
      ),
    ];
    for (const path of indexes) {
      const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
      const wildcards = text.match(/^export \*.*$/gm) ?? [];
      // The universal surface is listed by name once (src/index.ts); the Node entry takes it whole, and the
      // root names its `errors` namespace (whose module lists it by name).
      const allowed =
        path === 'src/node/index.ts'
          ? ["export * from '../index.js';"]
          : path === 'src/index.ts'
            ? ["export * as errors from './errors.js';"]
            : [];
      expect(wildcards, path).toEqual(allowed);
    }
  });

  it("the Node entry's own exports, types included, reuse no name of the root it re-exports", () => {
    // `export *` of the root yields to a name the entry exports itself, silently: one name would mean
    // one thing from happy-media and another from happy-media/node.
    const exported = (path: string) => {
      const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
      const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest);
      const names: string[] = [];
      for (const statement of file.statements) {
        if (
          ts.isExportDeclaration(statement) &&
          statement.exportClause &&
          ts.isNamedExports(statement.exportClause)
        )
          for (const element of statement.exportClause.elements) names.push(element.name.text);
      }
      return names;
    };
    const root = new Set(exported('src/index.ts'));
    const own = exported('src/node/index.ts');
    expect(root.size).toBeGreaterThan(50);
    expect(own.length).toBeGreaterThan(20);
    // The one name meant to differ: the Node entry's thumbhashFromImage decodes every format sharp reads,
    // the root's JPEG and PNG in pure JavaScript (same signature, same hash for the same pixels).
    expect(own.filter((name) => root.has(name))).toEqual(['thumbhashFromImage']);
  });

  it('publishes every public entry with its types and code, and nothing named internal', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    const entries = Object.entries(pkg.exports).filter(([key]) => key !== './package.json');
    expect(entries.map(([key]) => key)).toEqual([
      '.',
      './envelope',
      './blob',
      './happy',
      './mappers',
      './storage',
      './node',
      './web',
      './expo',
    ]);
    for (const [key, target] of entries) {
      if (typeof target === 'string') throw new Error(`${key} names no types`);
      // Each entry is the build of one source module: its declarations beside its code.
      expect(target.types, key).toBe(target.default.replace(/\.js$/, '.d.ts'));
      const source = target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(new URL(`../../${source}`, import.meta.url)), `${key}: ${source}`).toBe(true);
    }
    expect(JSON.stringify(pkg.exports)).not.toContain('internal');
  });
});
