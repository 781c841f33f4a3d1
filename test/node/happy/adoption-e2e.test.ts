/**
 * Happy adopts v2, end to end (docs/happy-adoption.md): happy-media writes a session on Happy's REAL
 * server as a v2 CLI would (helpers/adoption-session.ts: text, thinking, tool calls with a permission
 * round, a screenshot from a tool result, a subagent, a failed call, a video, a file, then a v1 file
 * event), `happy-media transcript --records` reads it back, and Happy's own app code, patched by the
 * series in integrations/happy/, turns the records into the app's messages: the normalizer
 * (`normalizeRawMessage`) and the reducer, compiled from the patched tree as they are. Then the
 * patched media path (sync/attachmentMedia.ts, what the chat's file view loads through) fetches each
 * attachment from the server, verified: the photo's bytes in memory, the video, the file and the v1
 * photo as files in an expo-file-system (this repository's in-memory one), each equal to what was sent.
 *
 * Needs HAPPY_MEDIA_HAPPY_SERVER_URL (scripts/happy-server.sh) and the patched tree with its test
 * packages (`scripts/happy-adoption.sh prepare && scripts/happy-adoption.sh test .tmp/happy-adoption/tree`,
 * as .ci/run does); skipped, saying which is missing, without them. HAPPY_ADOPTION_FIXTURE=PATH also
 * writes the transcript's records there: the fixture the app patch's specs read.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAccountSecret } from '../../../src/happy.js';
import { runCli } from '../../helpers/cli.js';
import { fakeExpoFileSystem } from '../../helpers/fake-expo-file-system.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { type AdoptionSession, writeAdoptionSession } from './helpers/adoption-session.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TREE = resolve(REPO, '.tmp/happy-adoption/tree');
const DEPS = resolve(REPO, '.tmp/happy-adoption/deps/node_modules');
const APP = join(TREE, 'packages/happy-app');

const prepared =
  existsSync(join(APP, 'sources/sync/typesRaw.ts')) &&
  existsSync(join(DEPS, 'happy-media/package.json')) &&
  existsSync(join(APP, 'node_modules'));
const skipReason = !SERVER
  ? "HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh install/start DIR and source DIR/env)"
  : !prepared
    ? 'the patched Happy tree is not prepared (run scripts/happy-adoption.sh prepare && scripts/happy-adoption.sh test .tmp/happy-adoption/tree)'
    : undefined;
if (skipReason) console.warn(`adoption-e2e.test: skipped: ${skipReason}`);

/** One line of `happy-media transcript --records`. */
interface RecordLine {
  seq: number;
  recordId: string;
  localId: string | null;
  createdAt: number;
  kind: 'message' | 'legacy' | 'unreadable';
  message?: unknown;
  record?: unknown;
}

/** A value of the patched app (its types live in Happy's tree, compiled at run time): read by shape. */
// biome-ignore lint/suspicious/noExplicitAny: the app's own types are not visible to this repository's compiler
type AppValue = any;

/** The patched app modules, compiled from the tree. */
interface PatchedApp {
  normalizeRawMessage(id: string, localId: string | null, createdAt: number, raw: unknown): AppValue;
  createReducer(): AppValue;
  reducer(
    state: AppValue,
    messages: AppValue[],
    agentState?: unknown,
  ): { messages: AppValue[]; hasReadyEvent?: boolean };
  createAttachmentStore(options: { serverUrl: string; token: string; sessionId: string }): AppValue;
  loadAttachmentBytes(input: AppValue, source: AppValue): Promise<Uint8Array>;
  openAttachmentFile(input: AppValue, source: AppValue): Promise<{ uri: string }>;
}

/**
 * Compiles Happy's patched app modules with the aliases its vitest and tsconfig give (`@` → sources,
 * `@slopus/happy-wire` → its source), resolving packages from the tree (the test packages `test`
 * installed, happy-media among them), into one ES module in `dir`.
 */
async function loadPatchedApp(dir: string): Promise<PatchedApp> {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'patched-app.mjs');
  await build({
    stdin: {
      contents: [
        "export { normalizeRawMessage } from '@/sync/typesRaw';",
        "export { createReducer, reducer } from '@/sync/reducer/reducer';",
        "export { createAttachmentStore, loadAttachmentBytes, openAttachmentFile } from '@/sync/attachmentMedia';",
      ].join('\n'),
      resolveDir: APP,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    alias: {
      '@': join(APP, 'sources'),
      '@slopus/happy-wire': join(TREE, 'packages/happy-wire/src/index.ts'),
    },
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

describe.skipIf(skipReason !== undefined)(
  "Happy's patched app reads a v2 session from Happy's real server",
  () => {
    let tmp: { dir: string; cleanup: () => Promise<void> };
    let written: AdoptionSession;
    let lines: RecordLine[];
    let app: PatchedApp;

    beforeAll(async () => {
      tmp = await makeTempDir();
      written = await writeAdoptionSession(SERVER as string, tmp.dir);
      const secretFile = join(tmp.dir, 'secret');
      await writeFile(secretFile, `${formatAccountSecret(written.secret)}\n`, { mode: 0o600 });
      const read = await runCli(['transcript', written.session.id, '--records'], {
        env: { HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER, HAPPY_MEDIA_SECRET_FILE: secretFile },
        timeoutMs: 120_000,
      });
      expect(read.code, read.stderr).toBe(0);
      lines = read.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      if (process.env.HAPPY_ADOPTION_FIXTURE)
        await writeFile(process.env.HAPPY_ADOPTION_FIXTURE, read.stdout);
      app = await loadPatchedApp(tmp.dir);
    }, 180_000);
    afterAll(async () => tmp?.cleanup());

    /** What the app's sync does with each record: decrypted content → normalizeRawMessage. */
    const normalized = () =>
      lines
        .map((line) =>
          app.normalizeRawMessage(line.recordId, line.localId, line.createdAt, line.message ?? line.record),
        )
        .filter((message) => message !== null);

    it('the transcript holds the v2 messages as written, and the v1 event as a legacy record', () => {
      const v2 = lines.filter((line) => line.kind === 'message').map((line) => line.message);
      expect(v2).toEqual(written.messages);
      const legacy = lines.filter((line) => line.kind === 'legacy');
      expect(legacy).toHaveLength(1);
      expect(legacy[0]?.record).toMatchObject({
        role: 'session',
        content: { role: 'user', ev: { t: 'file' } },
      });
    });

    it('normalizes every record into the app message kinds', () => {
      const messages = normalized();
      // Every record but turn-start gives one app message.
      expect(messages).toHaveLength(
        lines.length - written.messages.filter((m) => m.type === 'turn-start').length,
      );
      const kinds = messages.map((message: AppValue) =>
        message.role === 'agent'
          ? message.content.map((c: AppValue) => c.name ?? c.type).join('+')
          : message.role,
      );
      expect(kinds).toEqual([
        'user', // the prompt
        'thinking',
        'text',
        'Bash',
        'permission-request',
        'permission-response',
        'tool-result',
        'mcp__browser__screenshot',
        'file+tool-result', // the screenshot, uploaded first
        'tool-result',
        'Task',
        'text', // the subagent's
        'tool-result',
        'Read',
        'tool-result',
        'text',
        'file+tool-result', // the video
        'file+tool-result', // the log
        'event', // turn-end
        'file+tool-result', // the v1 photo
      ]);
    });

    it('carries each media message as one file tool call: ref, dimensions and thumbhash, or name', () => {
      const files = normalized()
        .filter((message: AppValue) => message.role === 'agent' && message.content[0]?.name === 'file')
        .map((message: AppValue) => message.content[0].input);
      const [screenshot, video, log] = written.messages.filter(
        (m) => m.type === 'photo' || m.type === 'video' || m.type === 'file',
      ) as AppValue[];
      expect(files[0]).toEqual({
        ref: screenshot.ref,
        name: 'Photo',
        kind: 'photo',
        format: 'v2',
        image: { width: 96, height: 64, thumbhash: screenshot.thumbhash },
      });
      expect(files[1]).toMatchObject({
        ref: video.ref,
        kind: 'video',
        format: 'v2',
        mimeType: 'video/mp4',
        size: written.media.video.length,
        durationMs: video.durationMs,
        image: { width: video.width, height: video.height, thumbhash: video.thumbhash },
      });
      expect(files[2]).toEqual({
        ref: log.ref,
        name: 'build.log',
        kind: 'file',
        format: 'v2',
        size: written.media.log.length,
        mimeType: log.mimeType,
      });
      // The v1 event keeps the shape the unpatched app gives it: the server's ref, no format.
      expect(files[3]).toMatchObject({ name: 'IMG_0001.png', image: { width: 80, height: 60 } });
      expect(files[3].ref).toMatch(/^sessions\/[^/]+\/attachments\/[^/]+\.enc$/);
      expect(files[3].format).toBeUndefined();
    });

    it('the reducer shows them: tool calls completed or failed, the permission answered, the subagent under its Task, media as files', () => {
      const state = app.createReducer();
      const { messages, hasReadyEvent } = app.reducer(state, normalized());
      expect(hasReadyEvent).toBe(true); // the turn's end
      const tools = messages.filter((m) => m.kind === 'tool-call').map((m) => m.tool);
      const byName = (name: string) => tools.filter((tool) => tool.name === name);
      expect(byName('Bash')[0]).toMatchObject({
        state: 'completed',
        permission: { status: 'approved', decision: 'approved' },
      });
      expect(byName('Read')[0]).toMatchObject({ state: 'error', result: 'File does not exist.' });
      expect(byName('file')).toHaveLength(4);
      for (const file of byName('file')) expect(file.state).toBe('completed');
      const task = messages.find((m) => m.kind === 'tool-call' && m.tool.name === 'Task');
      expect(task.tool.state).toBe('completed');
      expect(task.children.map((child: AppValue) => child.text)).toContain('All 12 links answer 200.');
      const texts = messages.filter((m) => m.kind === 'agent-text').map((m) => m.text);
      expect(texts).toEqual(expect.arrayContaining(['*The build needs a shell.*', 'I will build it first.']));
      expect(texts).not.toContain('All 12 links answer 200.'); // inside the Task, not the main chat
      expect(messages.filter((m) => m.kind === 'user-text').map((m) => m.text)).toEqual([
        'Build the site, then show me the page and the build log',
      ]);
      // Reading the same records again changes nothing (the app re-reads on reconnect).
      expect(app.reducer(state, normalized()).messages).toEqual([]);
    });

    it("the patched media path brings each attachment back from the server, verified: the photo's bytes, the video, the file and the v1 photo as files", async () => {
      const files = normalized()
        .filter((message: AppValue) => message.role === 'agent' && message.content[0]?.name === 'file')
        .map((message: AppValue) => message.content[0].input);
      const source = {
        store: app.createAttachmentStore({
          serverUrl: SERVER as string,
          token: written.token,
          sessionId: written.session.id,
        }),
        blobKey: written.session.blobKey,
      };
      // The photo, as the chat shows it: its bytes in memory.
      expect(await app.loadAttachmentBytes(files[0], source)).toEqual(written.media.screenshot);

      // Video, file and the v1 photo as verified files in the app's cache, cached by ref.
      const fileSystem = fakeExpoFileSystem();
      const expected = [written.media.video, written.media.log, written.media.v1Photo];
      for (const [index, input] of files.slice(1).entries()) {
        const { uri } = await app.openAttachmentFile(input, { ...source, fileSystem });
        expect(new fileSystem.File(uri).bytesSync()).toEqual(expected[index]);
        const writes = fileSystem.calls.length;
        expect((await app.openAttachmentFile(input, { ...source, fileSystem })).uri).toBe(uri);
        expect(fileSystem.calls.length).toBe(writes); // the second open is the cached file
      }

      // Another key opens nothing.
      const wrongKey = { ...source, blobKey: new Uint8Array(32) };
      await expect(app.loadAttachmentBytes(files[0], wrongKey)).rejects.toMatchObject({
        code: 'ERR_DECRYPTION_FAILED',
      });
    });
  },
);
