/**
 * Ids a mapper derives from the log: mapping the same log again writes the same messages (ids
 * included), different logs share no ids, a change in the log changes the ids from there on only, and a
 * mapper restarted on a log it had partly mapped (replaying what it had read, then pushing the rest)
 * writes exactly what one run writes from that point, uploading nothing twice.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentMapperOptions,
  createAgentMapper,
  type MediaHandler,
  type SessionMessage,
} from '../../../src/index.js';
import { type MediaUpload, SessionWriter } from '../../../src/mappers.js';
import { readFixture } from '../../helpers/mapped-stream.js';
import { expectValidStream, recordingMediaHandler, steppingClock } from '../../helpers/mappers.js';
import {
  assistant,
  image,
  prompt,
  resetFixtures,
  text,
  thinking,
  toolResult,
  toolUse,
  userBlocks,
} from './claude-fixtures.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A Claude session with a subagent whose sidechain is stored before its Task, a tool result image and thinking. */
function claudeSession(): unknown[] {
  resetFixtures();
  const ask = prompt('Look at the screenshot and check the tests');
  const think = assistant('msg_1', [thinking('Two things to do')], { parentUuid: ask.uuid as string });
  const task = assistant('msg_1', [
    toolUse('toolu_task', 'Task', { description: 'Run tests', prompt: 'Run the tests' }),
  ]);
  const sideAsk = prompt('Run the tests', { sidechain: true });
  const sideRun = assistant('msg_2', [toolUse('toolu_bash', 'Bash', { command: 'npm test' })], {
    sidechain: true,
    parentUuid: sideAsk.uuid as string,
  });
  const sideResult = userBlocks([toolResult('toolu_bash', 'ok')], {
    sidechain: true,
    parentUuid: sideRun.uuid as string,
  });
  const shot = assistant('msg_3', [toolUse('toolu_shot', 'Screenshot', {})]);
  const shotResult = userBlocks([toolResult('toolu_shot', [image(PNG, 'image/png')])]);
  const taskResult = userBlocks([toolResult('toolu_task', 'All tests pass')]);
  const answer = assistant('msg_4', [text('The tests pass and the screenshot shows the login page.')]);
  const next = prompt('Thanks');
  const again = assistant('msg_5', [text('You are welcome.')]);
  // The sidechain is stored before its Task: the mapper waits for it.
  return [ask, think, sideAsk, sideRun, task, sideResult, shot, shotResult, taskResult, answer, next, again];
}

const LOGS: readonly [name: string, provider: string, events: () => unknown[]][] = [
  ['a Claude session', 'claude', claudeSession],
  ['codex exec --json', 'codex', () => readFixture('codex/exec-json.jsonl')],
  ['a Codex rollout', 'codex', () => readFixture('codex/rollout.jsonl')],
  ['Codex protocol events', 'codex', () => readFixture('codex/events-approvals.jsonl')],
  ['an ACP prompt turn', 'acp', () => readFixture('acp/prompt-turn.jsonl')],
  ['an ACP history replay', 'acp', () => readFixture('acp/load-replay.jsonl')],
  ['an ACP cancelled turn', 'acp', () => readFixture('acp/cancel.jsonl')],
];

/** A media handler whose refs follow from the bytes alone, so two runs describe an image alike. */
function contentMediaHandler(): { handler: MediaHandler; uploads: MediaUpload[] } {
  return recordingMediaHandler((upload) => {
    let sum = 0;
    for (const byte of upload.bytes) sum = (sum * 31 + byte) >>> 0;
    return `media/b${upload.bytes.length}-${sum.toString(36)}`;
  });
}

function options(media: MediaHandler): AgentMapperOptions {
  return { media, clock: steppingClock(), verify: true };
}

/** One run: the messages each event wrote, then the end's. */
async function mapPerEvent(provider: string, events: readonly unknown[], media: MediaHandler) {
  const mapper = createAgentMapper(provider, options(media));
  const perEvent: SessionMessage[][] = [];
  for (const event of events) perEvent.push(await mapper.push(event));
  const end = await mapper.end();
  return { perEvent, end };
}

describe('ids follow from the log', () => {
  it.each(LOGS)('%s maps to the same messages, ids included, every time', async (_name, provider, events) => {
    const first = await mapPerEvent(provider, events(), contentMediaHandler().handler);
    const second = await mapPerEvent(provider, events(), contentMediaHandler().handler);
    expect(second).toEqual(first);
    const messages = [...first.perEvent.flat(), ...first.end];
    expect(messages.length).toBeGreaterThan(3);
    expectValidStream(messages);
    // Every id the writer made has cuid2's shape (callIds and prompts the provider named are its own).
    const made = messages.filter((message) => message.type !== 'permission-response').map((m) => m.id);
    for (const id of made) expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
  });

  it('different logs share no id', async () => {
    const seen = new Map<string, string>();
    for (const [name, provider, events] of LOGS) {
      const { perEvent, end } = await mapPerEvent(provider, events(), contentMediaHandler().handler);
      for (const message of [...perEvent.flat(), ...end]) {
        expect(seen.get(message.id), `${name} reuses an id of ${seen.get(message.id)}`).toBeUndefined();
        seen.set(message.id, name);
      }
    }
    expect(seen.size).toBeGreaterThan(100);
  });

  it('a change in the log keeps the ids before it and changes every id from there on', async () => {
    const events = readFixture('codex/exec-json.jsonl');
    const changedAt = Math.floor(events.length / 2);
    const changed = events.map((event, index) =>
      index === changedAt ? { ...(event as object), note: 'edited' } : event,
    );
    const original = await mapPerEvent('codex', events, contentMediaHandler().handler);
    const edited = await mapPerEvent('codex', changed, contentMediaHandler().handler);
    const ids = (run: typeof original, from: number, to: number) =>
      run.perEvent
        .slice(from, to)
        .flat()
        .map((message) => message.id);
    expect(ids(edited, 0, changedAt)).toEqual(ids(original, 0, changedAt));
    const after = new Set(ids(original, changedAt, events.length));
    expect(after.size).toBeGreaterThan(0);
    for (const id of ids(edited, changedAt, events.length)) expect(after.has(id)).toBe(false);
  });

  it('the same event twice in one log gets two sets of ids', async () => {
    const line = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's',
        update: {
          sessionUpdate: 'agent_message_chunk',
          messageId: 'm',
          content: { type: 'text', text: 'hi' },
        },
      },
    };
    const other = { ...line, params: { ...line.params, update: { ...line.params.update, messageId: 'n' } } };
    const { perEvent, end } = await mapPerEvent(
      'acp',
      [line, other, line, other],
      contentMediaHandler().handler,
    );
    const messages = [...perEvent.flat(), ...end];
    expect(messages.filter((message) => message.type === 'text')).toHaveLength(4);
    expectValidStream(messages);
  });

  it("a caller's createId still names every id, and a writer used on its own makes fresh ones", async () => {
    let n = 0;
    const mapper = createAgentMapper('claude', { createId: () => `mine-${++n}` });
    const written = [...(await mapper.push(prompt('hi'))), ...(await mapper.end())];
    expect(written.map((message) => message.id)).toEqual(['mine-1']);
    const one = new SessionWriter();
    const two = new SessionWriter();
    expect(one.userText('hi').id).not.toBe(two.userText('hi').id);
  });
});

/**
 * The ids this version writes for each log, as earlier versions wrote them: `happy-media map --happy`
 * relies on re-mapping a log writing the ids already in the session, so a change to how ids are derived
 * shows here (and has to be told to users: re-mapping an old log would append copies).
 */
const WRITTEN_IDS: Record<string, { count: number; first: string[]; last: string }> = {
  'a Claude session': {
    count: 17,
    first: ['lzqvcpfkr9n3ljwlennq049o', 'xddu9bgux3br2ckz43j0zrfi', 'io2jygn4jwsqhr7srkd3dkzp'],
    last: 'xf6q4ix3a27mt31dhrmp8xr0',
  },
  'codex exec --json': {
    count: 24,
    first: ['l86k39q33jeklcjtbc23e8h2', 'roja310e4hze745r8emqqi5c', 'un2658aeiwmz7pfeuqc6lt9a'],
    last: 'qb22gik77asy6swtkakneqtd',
  },
  'a Codex rollout': {
    count: 23,
    first: ['ea5jbto0sovvi3d0kpezfey0', 'wkt4thbjimods7x76bvi30vb', 'ect4xnw7pet9afoq985nw2ep'],
    last: 't0dyqcp1ahovfb7uom4lysnq',
  },
  'Codex protocol events': {
    count: 29,
    first: ['iikbnouqje9jm9wifigb3u2d', 'b5thbu3np0elapr2r1h0y72v', 'kr1sohvw0szd4a6m85h6tcbp'],
    last: 'bmhoi9577lnbjezz25qnfstp',
  },
  'an ACP prompt turn': {
    count: 26,
    first: ['pf6jrrx9kbkfowpro51vvwu5', 'jp0l9g2ue1q17bbjatqhhoi8', 'hv25siae51z8yncjxsaznlqs'],
    last: 'd09pbwg8fefph99hjqdnhjb3',
  },
  'an ACP history replay': {
    count: 12,
    first: ['lfefq2q1q2klpfe5zx47s33t', 'pmipcmhaxbzhrxn5dw9v1q6q', 't4wo1edtmg3aul8kkie3ou7t'],
    last: 'mtaviyv0x2lccpjf1h166il5',
  },
  'an ACP cancelled turn': {
    count: 18,
    first: ['rek3ytfk95w646q9haostaey', 'rl2e74mq7k3ixkkzv2fflakv', 'b9cnrj53kgyqjm0znt9z9oml'],
    last: 'et4a1sylpnbipig8wkbtvzfz',
  },
};

describe('ids are the ones earlier versions wrote', () => {
  it.each(LOGS)('%s', async (name, provider, events) => {
    const { perEvent, end } = await mapPerEvent(provider, events(), contentMediaHandler().handler);
    const ids = [...perEvent.flat(), ...end].map((message) => message.id);
    const written = { count: ids.length, first: ids.slice(0, 3), last: ids.at(-1)! };
    if (process.env.PRINT_WRITTEN_IDS) console.log(`WRITTEN ${JSON.stringify([name, written])}`);
    expect(written).toEqual(WRITTEN_IDS[name]);
  });
});

describe('a mapper resumed on a log it had partly mapped', () => {
  it.each(LOGS)(
    '%s: replaying the first N events, then pushing the rest, writes what one run writes from N, for every N',
    async (_name, provider, makeEvents) => {
      const events = makeEvents();
      const single = contentMediaHandler();
      const whole = await mapPerEvent(provider, events, single.handler);
      expect(single.uploads.length + whole.perEvent.flat().length).toBeGreaterThan(0);
      for (let resumeAt = 0; resumeAt <= events.length; resumeAt++) {
        const resumed = contentMediaHandler();
        const mapper = createAgentMapper(provider, options(resumed.handler));
        for (let i = 0; i < resumeAt; i++) {
          expect(await mapper.replay(events[i])).toEqual(whole.perEvent[i]!.map((message) => message.id));
        }
        expect(resumed.uploads).toEqual([]);
        for (let i = resumeAt; i < events.length; i++)
          expect(await mapper.push(events[i])).toEqual(whole.perEvent[i]);
        expect(await mapper.end()).toEqual(whole.end);
        const uploadedAfter = whole.perEvent
          .slice(resumeAt)
          .flat()
          .filter((m) => m.type === 'photo' || m.type === 'file');
        expect(resumed.uploads).toHaveLength(uploadedAfter.filter((m) => m.ref.startsWith('media/')).length);
      }
    },
  );

  it('refuses to replay after the end', async () => {
    const mapper = createAgentMapper('claude');
    await mapper.end();
    await expect(mapper.replay(prompt('late'))).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
  });
});
