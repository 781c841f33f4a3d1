/**
 * A session as a CLI patched to v2 writes it, on Happy's real server: Claude Code's output through
 * happy-media's Claude mapper (text, thinking, tool calls with a permission round, a screenshot from a
 * tool result uploaded first, a Task subagent, a failed call), a video and a file sent into the turn,
 * then a photo as Happy's v1 `file` event (what the unpatched app sends). Used by the adoption end-to-end test,
 * which reads it back through Happy's patched app code (docs/happy-adoption.md).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toBase64 } from '../../../../src/core/bytes.js';
import {
  createAgentMapper,
  type HappyClient,
  type HappySession,
  type SessionMessage,
} from '../../../../src/index.js';
import { sendMediaHandler, sendToSession } from '../../../../src/node/index.js';
import { sentFilePlaintext } from '../../../../src/node/send/file-plaintext.js';
import {
  assistant,
  canUseTool,
  image,
  permissionAnswer,
  prompt,
  resetFixtures,
  sdk,
  text,
  thinking,
  toolResult,
  toolUse,
  userBlocks,
} from '../../../core/mappers/claude-fixtures.js';
import { newHappyAccount } from '../../../helpers/happy-account.js';
import { makeMp4, makePng } from '../../playback/helpers/samples.js';

/**
 * The bytes the session holds, by what they are: as sent, so the video's identifying metadata is
 * neutralised (a send does that by default; the same size, its `udta` box turned to `free`).
 */
export interface AdoptionMedia {
  screenshot: Uint8Array;
  video: Uint8Array;
  log: Uint8Array;
  v1Photo: Uint8Array;
}

/** What {@link writeAdoptionSession} made. */
export interface AdoptionSession {
  secret: Uint8Array;
  /** The account's bearer token (what Happy's app holds beside the secret). */
  token: string;
  client: HappyClient;
  session: HappySession;
  media: AdoptionMedia;
  /** Every v2 message appended, in order (the v1 event is not among them). */
  messages: SessionMessage[];
}

/** What a send of the file at `path` encrypts: its bytes with identifying metadata neutralised. */
async function sentBytes(path: string, size: number): Promise<Uint8Array> {
  const source = await sentFilePlaintext(path, size);
  return new Uint8Array(await new Response(await source.read(0, size)).arrayBuffer());
}

/** Writes the session on the server at `url`; `dir` is a private temp dir for the files sent. */
export async function writeAdoptionSession(url: string, dir: string): Promise<AdoptionSession> {
  resetFixtures();
  const { secret, token, client, session } = await newHappyAccount(url, { name: 'v2 adoption' });
  const media: AdoptionMedia = {
    screenshot: await makePng(96, 64),
    video: await makeMp4(dir, 1),
    log: new TextEncoder().encode('> build\nbuilt 14 pages in 3.2 s\n'.repeat(40)),
    v1Photo: await makePng(80, 60),
  };
  const messages: SessionMessage[] = [];
  const append = async (batch: SessionMessage[]) => {
    if (batch.length === 0) return;
    await client.appendMessages(session, batch);
    messages.push(...batch);
  };

  const mapper = createAgentMapper('claude', {
    media: sendMediaHandler({ store: client.attachmentStore(session), blobKey: session.blobKey }),
  });
  const events = [
    prompt('Build the site, then show me the page and the build log'),
    assistant('msg_1', [thinking('The build needs a shell.')]),
    assistant('msg_1', [text('I will build it first.')]),
    assistant('msg_1', [
      toolUse('toolu_build', 'Bash', { command: 'npm run build', description: 'Build the site' }),
    ]),
    canUseTool('req_build', 'Bash', { command: 'npm run build' }, 'toolu_build'),
    permissionAnswer('req_build', 'allow'),
    userBlocks([toolResult('toolu_build', 'built 14 pages in 3.2 s')]),
    assistant('msg_2', [toolUse('toolu_shot', 'mcp__browser__screenshot', { url: 'http://localhost:3000' })]),
    userBlocks([toolResult('toolu_shot', [image(toBase64(media.screenshot), 'image/png')])]),
    assistant('msg_3', [
      toolUse('toolu_task', 'Task', { description: 'Check links', prompt: 'Check every link on the page' }),
    ]),
    sdk('assistant', [text('All 12 links answer 200.')], 'toolu_task'),
    userBlocks([toolResult('toolu_task', 'All links answer 200.')]),
    assistant('msg_4', [toolUse('toolu_read', 'Read', { file_path: '/work/project/missing.txt' })]),
    userBlocks([toolResult('toolu_read', 'File does not exist.', true)]),
    assistant('msg_5', [text('Here is the page, a recording of it and the build log.')]),
  ];
  for (const event of events) await append(await mapper.push(event));

  const turn = mapper.writer.openTurn;
  const videoPath = join(dir, 'page.mp4');
  const logPath = join(dir, 'build.log');
  const v1Path = join(dir, 'IMG_0001.png');
  await writeFile(videoPath, media.video);
  await writeFile(logPath, media.log);
  await writeFile(v1Path, media.v1Photo);
  media.video = await sentBytes(videoPath, media.video.length);
  for (const path of [videoPath, logPath]) {
    const sent = await sendToSession(path, { client, session, role: 'agent', turn });
    messages.push(sent.message as SessionMessage);
  }
  await append(await mapper.end());
  // The unpatched app sends a picked photo as a v1 file event, beside what a v2 CLI writes.
  await sendToSession(v1Path, { client, session, role: 'user', format: 'v1' });
  return { secret, token, client, session, media, messages };
}
