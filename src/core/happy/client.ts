/**
 * A Happy account on Happy's server, over `fetch` only (browsers, React Native, Node): sign in, list
 * and open sessions, create one the way Happy's CLI does, append messages to a session and read its
 * transcript back, and reach its attachments.
 *
 * Routes (Happy's server, `sources/app/api/routes/`): `POST /v1/auth` (authRoutes.ts), `GET /v2/sessions`
 * and `POST /v1/sessions` (sessionRoutes.ts), `GET`/`POST /v3/sessions/:sid/messages` (v3SessionRoutes.ts),
 * the attachment routes through {@link HappyServerStore}. Keys: session-keys.ts; records:
 * session-records.ts; the transport and its retry policy: happy-api.ts. docs/happy.md has the whole
 * picture.
 *
 * @module
 */

import { sha256 } from '@noble/hashes/sha2.js';
import * as z from 'zod';
import { describeValue, fromBase64, randomBytes, toBase64, toHex, utf8 } from '../bytes.js';
import { boxDataKey, createDataKey } from '../envelope/data-key.js';
import { assertSessionKey, dataKey, decryptJson, encryptJson, legacyKey } from '../envelope/envelope.js';
import { masterBlobKey, sessionBlobKey } from '../envelope/key-tree.js';
import { HappyMediaError, InvalidArgumentError, LimitError, StorageError } from '../errors.js';
import type { HappyRecordsSummary } from '../mappers/happy/map-happy-records.js';
import { checkBearerToken } from '../transport/bearer-token.js';
import { attachmentStoreOn, type HappyServerStore } from './attachment-store.js';
import type { HappyCredentials } from './credentials.js';
import { HappyApi, type HappyApiOptions, parseAnswer } from './happy-api.js';
import {
  accountKeys,
  type HappyAccountKeys,
  type HappySessionKeys,
  openSessionKeys,
} from './session-keys.js';
import {
  type AppendableMessage,
  type OpenedSessionRecord,
  openSessionRecords,
  type SealedRecord,
  type ServerMessage,
  ServerMessageSchema,
  sealSessionRecords,
} from './session-records.js';
import { requestToken } from './sign-in.js';
import { type HappySessionRecord, readTranscript } from './transcript.js';

/** Options of {@link HappyClient.connect}. */
export interface HappyClientOptions extends HappyApiOptions {
  /** The account: its secret, or Happy CLI's content public key and token (see {@link HappyCredentials}). */
  credentials: HappyCredentials;
  /**
   * A bearer token this account already holds on this server (Happy's app keeps one beside the secret),
   * used instead of signing in. Default: sign in with the secret, or use the token that came with Happy
   * CLI's public-key credentials.
   */
  token?: string;
  /** Cancels signing in. */
  signal?: AbortSignal;
}

/** A session as the account lists it. */
export interface HappySessionInfo {
  /** The session's id on the server. */
  readonly id: string;
  /** The server's version counter of the session (not the message sequence). */
  readonly seq: number;
  /** When it was created and last updated (ms since the epoch). */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Whether an agent is attached, and when it was last seen. */
  readonly active: boolean;
  readonly activeAt: number;
  /** `datakey` for sessions with their own data key, `legacy` for those sealed with the account secret. */
  readonly variant: HappySessionKeys['variant'];
  /**
   * The session's metadata (`path`, `host`, `name`, ... as Happy's CLI writes it), when this account's
   * keys open it; absent otherwise (no secret, or metadata that is not sealed JSON).
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** An opened session: its description and its keys. Hand it to {@link HappyClient.appendMessages}. */
export interface HappySession extends HappySessionInfo, HappySessionKeys {}

/**
 * Metadata of a new session, sealed with its key. Happy's app needs `path` and `host` to show a session
 * (its `MetadataSchema`); the rest of Happy CLI's fields (`name`, `os`, `version`, `flavor`, ...) are
 * optional.
 */
export interface HappySessionMetadata {
  /** The working directory the session is about. */
  path: string;
  /** The machine's name. */
  host: string;
  /** A title for the session list. */
  name?: string;
  [field: string]: unknown;
}

/** Options of {@link HappyClient.createSession}. */
export interface CreateSessionOptions {
  /** What the app shows about the session. */
  metadata: HappySessionMetadata;
  /**
   * The session's tag: the server returns the existing session for a tag this account already used
   * (Happy's CLI passes a fresh UUID per session). Default: 32 random hex digits.
   */
  tag?: string;
  /**
   * `datakey` (default, what Happy's CLI makes with any credentials it has: a random data key boxed
   * for the content public key) or `legacy` (sealed with the account secret, as older CLIs did; needs the secret).
   */
  variant?: HappySessionKeys['variant'];
  signal?: AbortSignal;
}

/** One message after {@link HappyClient.appendMessages}: where it is in the session. */
export interface AppendedMessage {
  /** The message as given. */
  readonly message: AppendableMessage;
  /** Its idempotency key (the message's id). */
  readonly localId: string;
  /** Its sequence number in the session. */
  readonly seq: number;
  /** The server's id of the record. */
  readonly recordId: string;
  /** When the server stored it (the first time, for a message posted again). */
  readonly createdAt: number;
}

/** Options of {@link HappyClient.readMessages}. */
export interface ReadMessagesOptions {
  /** Read the records after this sequence number (default 0: from the start). */
  after?: number;
  /** Records per request, 1-500 (default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Happy's limit of messages per `POST /v3/sessions/:sid/messages`. */
const APPEND_BATCH = 100;

/**
 * Pages one listing or reading follows at most: 1000 pages of 200 sessions, 100 000 pages of records
 * (10 million at the default page size). A server that pages on past it is not ending the listing.
 */
const MAX_SESSION_PAGES = 1000;
const MAX_MESSAGE_PAGES = 100_000;

/** The error of a paging that does not end. */
function endlessPaging(leg: 'list-sessions' | 'read-messages', pages: number): LimitError {
  return new LimitError(
    `${leg} failed: Happy's server answered ${pages} pages and said more follow; a listing ends well before that`,
  );
}

const ServerSessionSchema = z.object({
  id: z.string().min(1),
  seq: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
  active: z.boolean().optional(),
  activeAt: z.number().optional(),
  metadata: z.string().nullish(),
  dataEncryptionKey: z.string().nullish(),
});
type ServerSession = z.infer<typeof ServerSessionSchema>;

const SessionPageSchema = z.object({
  sessions: z.array(ServerSessionSchema),
  nextCursor: z.string().nullish(),
  hasNext: z.boolean().optional(),
});
const CreatedSessionSchema = z.object({ session: ServerSessionSchema });
const AppendAnswerSchema = z.object({
  messages: z.array(
    z.object({ id: z.string(), seq: z.number(), localId: z.string().nullish(), createdAt: z.number() }),
  ),
});
const MessagePageSchema = z.object({ messages: z.array(z.unknown()), hasMore: z.boolean().optional() });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeSession(
  raw: ServerSession,
  metadata: Readonly<Record<string, unknown>> | undefined,
): HappySessionInfo {
  return {
    id: raw.id,
    seq: raw.seq,
    createdAt: raw.createdAt,
    updatedAt: raw.updatedAt,
    active: raw.active ?? false,
    activeAt: raw.activeAt ?? raw.updatedAt,
    variant: raw.dataEncryptionKey ? 'datakey' : 'legacy',
    ...(metadata ? { metadata } : {}),
  };
}

/** The session's metadata opened with its key, or `undefined` when it is not sealed JSON. */
function openMetadata(
  text: string | null | undefined,
  keys: HappySessionKeys,
): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value = decryptJson(fromBase64(text, 'metadata'), keys.key);
    return isRecord(value) ? value : undefined;
  } catch (error) {
    if (error instanceof HappyMediaError) return undefined;
    throw error;
  }
}

/** A short digest of what a record is (its id, `localId` and content), to compare two records cheaply. */
function recordFingerprint(raw: ServerMessage): string {
  return toHex(sha256(utf8(JSON.stringify([raw.id, raw.localId ?? null, raw.content]))));
}

function assertSession(session: unknown): HappySession {
  if (!isRecord(session) || typeof session.id !== 'string' || session.id === '') {
    throw new InvalidArgumentError(
      `expected a session from openSession() or createSession() for \`session\` but received ${describeValue(session)}`,
    );
  }
  assertSessionKey(session.key, 'session.key');
  return session as unknown as HappySession;
}

function sessionPath(session: HappySession): string {
  return `/v3/sessions/${encodeURIComponent(session.id)}/messages`;
}

/**
 * A signed-in Happy account.
 *
 * @example
 * ```ts
 * const client = await HappyClient.connect({ url: 'https://api.cluster-fluster.com', credentials: parseHappyCredentials(secretText) });
 * const session = await client.openSession(sessionId);
 * await client.appendMessages(session, [textMessage({ role: 'user', text: 'hi' })]);
 * for await (const record of client.readMessages(session)) if (record.kind === 'message') show(record.message);
 * ```
 */
export class HappyClient {
  /** The server's base URL, without a trailing slash. */
  readonly url: string;
  /** True when the credentials open existing sessions (they hold the account secret). */
  readonly canOpenSessions: boolean;
  readonly #api: HappyApi;
  readonly #token: string;
  readonly #keys: HappyAccountKeys;

  private constructor(api: HappyApi, token: string, keys: HappyAccountKeys) {
    this.#api = api;
    this.#token = token;
    this.#keys = keys;
    this.url = api.url;
    this.canOpenSessions = keys.content !== undefined;
  }

  /**
   * Signs in: with the account secret through `POST /v1/auth` (a fresh token, on any server), unless a
   * `token` is given; with Happy CLI's content public key, the token that came with it is used as it is
   * (a request it does not pass fails later with `ERR_UNAUTHORIZED`).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for bad options or credentials.
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server does not verify the signature.
   * @throws {StorageError} `ERR_STORAGE` when the server cannot be reached (after the retries).
   */
  static async connect(options: HappyClientOptions): Promise<HappyClient> {
    const api = new HappyApi(options);
    const credentials = options.credentials;
    if (
      !isRecord(credentials) ||
      (credentials.kind !== 'secret' && credentials.kind !== 'content-public-key')
    ) {
      throw new InvalidArgumentError(
        `expected credentials from parseHappyCredentials() for \`credentials\` but received ${describeValue(credentials)}`,
      );
    }
    if (options.token !== undefined && (typeof options.token !== 'string' || options.token.trim() === '')) {
      throw new InvalidArgumentError(
        `expected a bearer token for \`token\` but received ${describeValue(options.token)}`,
      );
    }
    const keys = accountKeys(credentials);
    // Every token given goes through the one bearer-token check before any request carries it.
    let token: string;
    if (options.token !== undefined) token = checkBearerToken(options.token.trim(), 'token');
    else if (credentials.kind === 'secret')
      token = await requestToken(api, credentials.secret, options.signal);
    else token = checkBearerToken(String(credentials.token ?? '').trim(), 'credentials.token');
    return new HappyClient(api, token, keys);
  }

  /**
   * Every session of the account, page by page. The listing ends on a page without sessions or without a
   * next cursor, and on a cursor seen before (a server that sends old cursors would list forever);
   * past {@link MAX_SESSION_PAGES} pages it fails.
   */
  private async *sessionPages(signal?: AbortSignal): AsyncGenerator<ServerSession> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let pages = 1; ; pages += 1) {
      if (pages > MAX_SESSION_PAGES) throw endlessPaging('list-sessions', MAX_SESSION_PAGES);
      const query = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await this.#api.request({
        leg: 'list-sessions',
        method: 'GET',
        path: `/v2/sessions?${query}`,
        token: this.#token,
        ...(signal ? { signal } : {}),
      });
      const page = parseAnswer('list-sessions', SessionPageSchema, answer, 'a list of sessions');
      yield* page.sessions;
      if (!page.hasNext || !page.nextCursor || page.sessions.length === 0 || seen.has(page.nextCursor))
        return;
      seen.add(page.nextCursor);
      cursor = page.nextCursor;
    }
  }

  private open(raw: ServerSession): HappySession {
    const keys = openSessionKeys(raw.dataEncryptionKey ?? null, this.#keys);
    return { ...describeSession(raw, openMetadata(raw.metadata, keys)), ...keys };
  }

  /**
   * Every session of the account, newest first, with its metadata where this account's keys open it.
   *
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
   * @throws {StorageError} `ERR_STORAGE` when the server cannot be reached or answers something else.
   */
  async listSessions(options: { signal?: AbortSignal } = {}): Promise<HappySessionInfo[]> {
    const out: HappySessionInfo[] = [];
    for await (const raw of this.sessionPages(options.signal)) {
      let metadata: Record<string, unknown> | undefined;
      try {
        metadata = this.canOpenSessions
          ? openMetadata(raw.metadata, openSessionKeys(raw.dataEncryptionKey, this.#keys))
          : undefined;
      } catch (error) {
        // A session whose data key does not open with this account's keys is listed without metadata.
        if (!(error instanceof HappyMediaError)) throw error;
      }
      out.push(describeSession(raw, metadata));
    }
    return out;
  }

  /**
   * Opens one of the account's sessions: its keys (data key from its bundle, or the account secret for a
   * legacy session) and its metadata.
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when the account has no session with this id (a session of
   *   another account is not visible to this one).
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the credentials cannot open sessions
   *   (Happy CLI's content public key only), or `id` is not a string.
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the session's data key is not boxed for this account.
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
   */
  async openSession(id: string, options: { signal?: AbortSignal } = {}): Promise<HappySession> {
    if (typeof id !== 'string' || id === '') {
      throw new InvalidArgumentError(`expected a session id for \`id\` but received ${describeValue(id)}`);
    }
    for await (const raw of this.sessionPages(options.signal)) {
      if (raw.id === id) return this.open(raw);
    }
    throw new StorageError(
      `open-session failed: session ${JSON.stringify(id.slice(0, 64))} is not one of this account's sessions on ${this.#api.origin} (a session of another account is not visible; check the id and the account secret)`,
      { code: 'ERR_NOT_FOUND' },
    );
  }

  /**
   * Creates a session as Happy's CLI does (`ApiClient.getOrCreateSession`): a fresh random data key boxed
   * for the account's content public key (the `dataEncryptionKey` bundle), the metadata sealed with it.
   * With a tag this account already used, the server returns that session, opened with this account's keys.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for metadata without `path` and `host`, a
   *   `legacy` session without the account secret, or a tag's existing session these credentials cannot open.
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
   * @throws {StorageError} `ERR_STORAGE` when the server cannot be reached or answers something else.
   */
  async createSession(options: CreateSessionOptions): Promise<HappySession> {
    const metadata = options?.metadata;
    if (!isRecord(metadata) || typeof metadata.path !== 'string' || typeof metadata.host !== 'string') {
      throw new InvalidArgumentError(
        "expected `metadata` with string `path` and `host` (Happy's app shows no session without them) but received " +
          describeValue(metadata),
      );
    }
    const variant = options.variant ?? 'datakey';
    if (variant !== 'datakey' && variant !== 'legacy') {
      throw new InvalidArgumentError(
        `expected 'datakey' or 'legacy' for \`variant\` but received ${describeValue(variant)}`,
      );
    }
    const tag = options.tag ?? toHex(randomBytes(16));
    if (typeof tag !== 'string' || tag === '') {
      throw new InvalidArgumentError(
        `expected a non-empty string for \`tag\` but received ${describeValue(tag)}`,
      );
    }
    let keys: HappySessionKeys;
    let bundle: string | null = null;
    if (variant === 'datakey') {
      const key = createDataKey();
      bundle = toBase64(boxDataKey(key, this.#keys.contentPublicKey));
      keys = { variant, key: dataKey(key), blobKey: sessionBlobKey(key) };
    } else {
      if (!this.#keys.secret) {
        throw new InvalidArgumentError(
          'a legacy session is sealed with the account secret, and these credentials hold only the content public key; create a datakey session',
        );
      }
      keys = { variant, key: legacyKey(this.#keys.secret), blobKey: masterBlobKey(this.#keys.secret) };
    }
    const answer = await this.#api.request({
      leg: 'create-session',
      method: 'POST',
      path: '/v1/sessions',
      token: this.#token,
      body: {
        tag,
        metadata: toBase64(encryptJson(metadata, keys.key)),
        agentState: null,
        dataEncryptionKey: bundle,
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const raw = parseAnswer('create-session', CreatedSessionSchema, answer, 'the session').session;
    // The tag was used before: the server kept that session and its own key.
    if ((raw.dataEncryptionKey ?? null) !== bundle) return this.open(raw);
    return { ...describeSession(raw, openMetadata(raw.metadata, keys)), ...keys };
  }

  /**
   * Seals each message for the session and appends them, in order (`POST /v3/sessions/:sid/messages`,
   * 100 per request). v2 messages are sealed as they are, Happy's v1 `file` events wrapped as Happy's CLI
   * writes them (session-records.ts). Each goes under its own id as `localId`: the server keeps the first
   * copy of a `localId`, so a retry after a lost answer, or posting the same message again, never adds a
   * second one (the answer then gives the first copy's `seq`). 408/429/5xx and network failures are
   * retried (happy-api.ts); every message is validated before anything is sent.
   *
   * @throws {SchemaError} `ERR_SCHEMA` when a message is neither a valid v2 message nor a v1 `file` event
   *   (its index in the message); nothing is sent.
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad session, or two messages with one id.
   * @throws {StorageError} `ERR_NOT_FOUND` for a session the account does not have; `ERR_UPLOAD_FAILED`
   *   otherwise, after the retries. Batches before a failed one stay appended.
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
   * @example
   * ```ts
   * const [{ seq }] = await client.appendMessages(session, [message]);
   * ```
   */
  async appendMessages(
    session: HappySession,
    messages: readonly AppendableMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<AppendedMessage[]> {
    const target = assertSession(session);
    if (!Array.isArray(messages)) {
      throw new InvalidArgumentError(
        `expected an array of messages for \`messages\` but received ${describeValue(messages)}`,
      );
    }
    // With an asynchronous AES-GCM installed (expo-crypto in the app), sealed natively, all at once.
    const sealed: SealedRecord[] = await sealSessionRecords(messages, target.key);
    const seen = new Set<string>();
    for (const { localId } of sealed) {
      if (seen.has(localId)) {
        throw new InvalidArgumentError(
          `expected every message to have its own id but ${JSON.stringify(localId.slice(0, 64))} is used twice; the server would keep only the first`,
        );
      }
      seen.add(localId);
    }
    const out: AppendedMessage[] = [];
    for (let start = 0; start < sealed.length; start += APPEND_BATCH) {
      const batch = sealed.slice(start, start + APPEND_BATCH);
      const answer = await this.#api.request({
        leg: 'append-messages',
        method: 'POST',
        path: sessionPath(target),
        token: this.#token,
        body: { messages: batch },
        notFound: `session ${target.id} was not found or belongs to another account`,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const stored = parseAnswer(
        'append-messages',
        AppendAnswerSchema,
        answer,
        'the stored messages',
      ).messages;
      const byLocalId = new Map(stored.map((m) => [m.localId, m]));
      batch.forEach(({ localId }, i) => {
        const record = byLocalId.get(localId);
        if (!record) {
          throw new StorageError(
            `append-messages failed: Happy's server did not confirm message ${start + i}`,
            {
              code: 'ERR_UPLOAD_FAILED',
            },
          );
        }
        out.push({
          message: messages[start + i] as AppendableMessage,
          localId,
          seq: record.seq,
          recordId: record.id,
          createdAt: record.createdAt,
        });
      });
    }
    return out;
  }

  /**
   * Reads the session in order (`GET /v3/sessions/:sid/messages?after_seq=…`, a page at a time), opens
   * each record with the session key, and yields it with the v2 messages it contributes to the
   * transcript (`messages`): a v2 record's own message, and for records in Happy's older shapes (legacy
   * user/agent records, v1 session and `file` events) what the legacy reader
   * (`mapHappyRecords`) makes of them, turns and calls across records included (transcript.ts). A record
   * that does not open is yielded as `unreadable` with its error (no messages) and the reading goes on;
   * only the transport fails the iteration. The generator returns the reader's summary (skipped shapes by
   * reason, the v1 attachments met).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad session, `after` or `pageSize`.
   * @throws {StorageError} `ERR_NOT_FOUND` for a session the account does not have; `ERR_DOWNLOAD_FAILED`
   *   when a page cannot be read (after the retries).
   * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
   * @example
   * ```ts
   * const messages: SessionMessage[] = [];
   * for await (const record of client.readMessages(session, { after: lastSeq })) {
   *   messages.push(...record.messages);
   *   lastSeq = record.seq;
   * }
   * render(foldTranscript(messages));
   * ```
   */
  readMessages(
    session: HappySession,
    options: ReadMessagesOptions = {},
  ): AsyncGenerator<HappySessionRecord, HappyRecordsSummary> {
    const target = assertSession(session);
    const after = options.after ?? 0;
    const pageSize = options.pageSize ?? 100;
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new InvalidArgumentError(
        `expected a non-negative integer for \`after\` but received ${describeValue(after)}`,
      );
    }
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 500) {
      throw new InvalidArgumentError(
        `expected an integer from 1 to 500 for \`pageSize\` but received ${describeValue(pageSize)}`,
      );
    }
    return readTranscript(this.openedRecords(target, after, pageSize, options.signal), target.id);
  }

  /** The session's records from `after` on, page by page, opened and sorted. */
  private async *openedRecords(
    target: HappySession,
    after: number,
    pageSize: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<OpenedSessionRecord> {
    let cursor = after;
    // What the records of the last page were (by seq), to tell a record sent again from another one
    // sent under a seq already read.
    let lastPage = new Map<number, string>();
    for (let pages = 1; ; pages += 1) {
      if (pages > MAX_MESSAGE_PAGES) throw endlessPaging('read-messages', MAX_MESSAGE_PAGES);
      const answer = await this.#api.request({
        leg: 'read-messages',
        method: 'GET',
        path: `${sessionPath(target)}?after_seq=${cursor}&limit=${pageSize}`,
        token: this.#token,
        notFound: `session ${target.id} was not found or belongs to another account`,
        ...(signal ? { signal } : {}),
      });
      const page = parseAnswer('read-messages', MessagePageSchema, answer, 'a page of messages');
      const start = cursor;
      const parsed = page.messages.map((item) => ServerMessageSchema.safeParse(item));
      // The page's records opened together (an asynchronous AES-GCM keeps them all in flight).
      const valid = parsed.flatMap((raw) => (raw.success ? [raw.data] : []));
      const opened = (await openSessionRecords(valid, target.key)).values();
      const thisPage = new Map<number, string>();
      for (const [i, item] of page.messages.entries()) {
        const raw = parsed[i]!;
        if (!raw.success) {
          // A seq that is no sequence number (a fraction, NaN, past 2^53) is not believed: it moves nothing.
          const told = isRecord(item) ? item.seq : undefined;
          const believed = typeof told === 'number' && Number.isSafeInteger(told) && told >= 0;
          const seq = believed ? told : cursor;
          yield {
            seq,
            recordId: isRecord(item) && typeof item.id === 'string' ? item.id : '',
            localId: null,
            createdAt: isRecord(item) && typeof item.createdAt === 'number' ? item.createdAt : 0,
            kind: 'unreadable',
            error: new StorageError(
              "read-messages: Happy's server returned a record without its id, seq or time",
              {
                code: 'ERR_DOWNLOAD_FAILED',
              },
            ),
          };
          cursor = Math.max(cursor, seq);
          continue;
        }
        const record = opened.next().value as OpenedSessionRecord;
        const fingerprint = recordFingerprint(raw.data);
        if (raw.data.seq <= cursor) {
          // A seq this reading has passed: the same record sent again is dropped; anything else under
          // it is reported, and the record read first stands.
          if (lastPage.get(raw.data.seq) === fingerprint || thisPage.get(raw.data.seq) === fingerprint)
            continue;
          yield {
            seq: raw.data.seq,
            recordId: raw.data.id,
            localId: raw.data.localId ?? null,
            createdAt: raw.data.createdAt,
            kind: 'unreadable',
            error: new StorageError(
              `read-messages: Happy's server sent a record under seq ${raw.data.seq}, which this reading had passed, with other content than what was read there; the first one stands`,
              { code: 'ERR_DOWNLOAD_FAILED' },
            ),
          };
          continue;
        }
        thisPage.set(raw.data.seq, fingerprint);
        cursor = raw.data.seq;
        yield record;
      }
      lastPage = thisPage;
      if (!page.hasMore) return;
      if (cursor === start) {
        throw new StorageError(
          `read-messages failed: Happy's server said more records follow seq ${cursor} but sent none`,
          {
            code: 'ERR_DOWNLOAD_FAILED',
          },
        );
      }
    }
  }

  /**
   * The session's attachments as a {@link HappyServerStore} on this client's request path (its server,
   * token, `fetch` and retry policy): upload with it, then append the message that names the blob.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad session.
   */
  attachmentStore(session: HappySession): HappyServerStore {
    return attachmentStoreOn(this.#api, this.#token, assertSession(session).id);
  }
}
