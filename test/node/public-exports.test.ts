/**
 * Pins the public surface: the value exports of every entry (`happy-media`, `happy-media/node`,
 * `happy-media/web`, `happy-media/expo`), by name (docs/architecture.md, "Public surface"). Adding or removing an export must change this list on purpose, in the
 * same commit. Type-only exports vanish at run time; the type check of every caller covers those.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Read as plain records: the test is about which names exist, not what they are.
const universal: Record<string, unknown> = await import('../../src/index.js');
const node: Record<string, unknown> = await import('../../src/node/index.js');
const expo: Record<string, unknown> = await import('../../src/expo/index.js');
const web: Record<string, unknown> = await import('../../src/web/index.js');

/** Value exports of the universal entry. */
const UNIVERSAL = [
  'AbortedError',
  'DecryptionError',
  'DiskError',
  'FormatError',
  'HAPPY_MAX_ATTACHMENT_BYTES',
  'HappyClient',
  'HappyFileEventSchema',
  'HappyMediaError',
  'HappyServerStore',
  'InternalError',
  'InvalidArgumentError',
  'KEY_BYTES',
  'LimitError',
  'MissingDependencyError',
  'NotSupportedError',
  'PUBLIC_KEY_BYTES',
  'ProbeError',
  'STREAM_RULES',
  'SchemaError',
  'SessionMessageSchema',
  'StorageError',
  'StreamError',
  'THUMBHASH_MAX_SIDE',
  'UnauthorizedError',
  'UsageError',
  'V1_BLOB_MAX_PLAINTEXT_BYTES',
  'accountKeys',
  'appendAgentLog',
  'assertSessionMessage',
  'assertWithinStoreLimit',
  'boxDataKey',
  'boxForPublicKey',
  'bufferRangeSource',
  'cipherModuleAesGcm',
  'ciphertextSize',
  'contentKeyPair',
  'contentSeed',
  'createAccountSecret',
  'createDataKey',
  'createDecryptStream',
  'createEncryptStream',
  'createMediaRef',
  'createWithPut',
  'createMessageId',
  'createStreamValidator',
  'dataKey',
  'dataKeyCiphertextSize',
  'decryptBlob',
  'decryptDataKey',
  'decryptDataKeyAsync',
  'decryptJson',
  'decryptLegacy',
  'decryptV1Blob',
  'deriveChild',
  'deriveKey',
  'deriveRoot',
  'downloadMedia',
  'encryptBlob',
  'encryptDataKey',
  'encryptDataKeyAsync',
  'encryptJson',
  'encryptLegacy',
  'encryptV1Blob',
  'fetchBlobSource',
  'fileMessage',
  'foldTranscript',
  'formatAccountSecret',
  'fromBase64',
  'getRuntime',
  'happyFileEvent',
  'installRuntime',
  'isHappyMediaError',
  'isMediaRef',
  'isRef',
  'isRetryableError',
  'legacyCiphertextSize',
  'legacyKey',
  'masterBlobKey',
  'mediaBlobContext',
  'mediaRefId',
  'memorySink',
  'nobleAesGcm',
  'openBlobRandomAccess',
  'openBoxForPublicKey',
  'openDataKeyBundle',
  'openMediaRandomAccess',
  'openMessage',
  'openMessageAsync',
  'openMessages',
  'openMessagesAsync',
  'openRaw',
  'openRawAsync',
  'openSessionKeys',
  'openSessionRecord',
  'parseAccountSecret',
  'parseEnvelope',
  'parseHappyCredentials',
  'parseHappyFileEvent',
  'parseRef',
  'parseSessionMessage',
  'permissionRequest',
  'permissionResponse',
  'photoMessage',
  'plaintextSize',
  'readJsonLines',
  'sealMessage',
  'sealMessageAsync',
  'sealMessages',
  'sealRaw',
  'sealRawAsync',
  'sealSessionRecord',
  'sendPickedMedia',
  'serviceMessage',
  'sessionBlobKey',
  'sessionKey',
  'storeRangeSource',
  'textMessage',
  'thumbhashFromImage',
  'thumbhashFromRgba',
  'thumbhashInputSize',
  'toBase64',
  'toolCallEnd',
  'toolCallStart',
  'turnEnd',
  'turnStart',
  'unboundBlobContext',
  'unwrapSessionContent',
  'validateStream',
  'videoMessage',
  'webCryptoAesGcm',
  'wrapForApp',
  'wrapForCli',
  'CALL_UNFINISHED_ERROR',
  'MAPPER_PROVIDERS',
  'SKIP_REASONS',
  'SessionWriter',
  'createAgentMapper',
  'describeMediaMessage',
  'detectAgentLog',
  'getMapperProvider',
  'mapAgentOutput',
  'mapHappyRecords',
];

/** Value exports the Node entry adds to the universal ones. */
const NODE_ONLY = [
  'HAPPY_MAX_PLAINTEXT_BYTES',
  'HttpBlobStore',
  'LocalBlobStore',
  'MediaCache',
  'S3BlobStore',
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

  it("lists every export by name: no `export *` in an entry or area index but the Node entry's one of the universal entry", () => {
    const indexes = [
      'src/index.ts',
      'src/node/index.ts',
      'src/node/internal.ts',
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
      // The universal surface is listed by name once (src/index.ts); the Node entry takes it whole.
      const allowed = path === 'src/node/index.ts' ? ["export * from '../index.js';"] : [];
      expect(wildcards, path).toEqual(allowed);
    }
  });

  it('publishes only the two public entries (the internal entry stays out of package.json exports)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(pkg.exports)).not.toContain('./internal');
    expect(JSON.stringify(pkg.exports)).not.toContain('internal');
  });
});
