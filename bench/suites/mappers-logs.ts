/**
 * The logs the mappers suite maps: deterministic sessions of each provider, of about a given number of
 * events, in the form a user hands `happy-media map` (a Claude Code session JSONL, a Codex rollout, an
 * ACP session's JSON-RPC messages), with an image in one tool result of 25 when one is given.
 *
 * @module
 */

type Json = Record<string, unknown>;

/** A generated log: its lines, how many tool calls it holds (each ends without an error), how many carry an image. */
export interface GeneratedLog {
  lines: string[];
  toolCalls: number;
  images: number;
}

/** A log generator: endless turns, each a piece of a {@link GeneratedLog} (its lines and counts). */
export type LogTurns = Generator<GeneratedLog, never>;

/** The first turns of `turns` that hold at least `events` lines, as one log. */
function collect(turns: LogTurns, events: number): GeneratedLog {
  const log: GeneratedLog = { lines: [], toolCalls: 0, images: 0 };
  while (log.lines.length < events) {
    const turn = turns.next().value;
    log.lines.push(...turn.lines);
    log.toolCalls += turn.toolCalls;
    log.images += turn.images;
  }
  return log;
}

/** Keys whose text a real session makes long: messages, thinking, prompts, tool inputs' contents, tool output. */
const PAYLOAD_KEYS: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'prompt',
  'content',
  'newText',
  'oldText',
  'stdout',
  'aggregated_output',
]);

/**
 * `log` with its payloads as long as a real session's: every non-empty string under a
 * {@link PAYLOAD_KEYS} key, and the `output` inside a Codex result's JSON text, followed by prose up to
 * `bytes`. The generators write a few dozen bytes of text per event, where a real session's answers,
 * thinking, file contents and command output run to kilobytes: this is what a mapper's cost per byte
 * (against the parse's) shows on. An ACP agent's message and thought chunks, a few words each in a real
 * session too, are left as they are. Equal texts stay equal and distinct ones distinct (a Task's prompt and
 * its sidechain's first message still match), so the log maps to the same messages, only longer.
 */
export function withLongPayloads(log: GeneratedLog, bytes: number): GeneratedLog {
  let prose = '';
  for (let word = 0; prose.length < bytes; word++)
    prose += `word${word} lorem ipsum dolor sit amet, consectetur adipiscing elit.\n`;
  const longer = (text: string) =>
    text.length + 1 >= bytes ? text : `${text}\n${prose.slice(0, bytes - text.length - 1)}`;
  const lengthen = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(lengthen);
    if (typeof value !== 'object' || value === null) return value;
    const object = value as Json;
    // An ACP agent streams its messages and thoughts in chunks of a few words: those stay as they are.
    if (typeof object.sessionUpdate === 'string' && object.sessionUpdate.endsWith('_chunk')) return object;
    for (const key of Object.keys(object)) {
      const field = object[key];
      if (PAYLOAD_KEYS.has(key) && typeof field === 'string' && field.length > 0) object[key] = longer(field);
      else if (key === 'output' && typeof field === 'string' && field.startsWith('{')) {
        const output = JSON.parse(field) as Json;
        if (typeof output.output === 'string') output.output = longer(output.output);
        object[key] = JSON.stringify(output);
      } else object[key] = lengthen(field);
    }
    return object;
  };
  return { ...log, lines: log.lines.map((line) => JSON.stringify(lengthen(JSON.parse(line)))) };
}

/**
 * A deterministic Claude Code session log of about `events` lines (prompts, thinking, text, three
 * parallel reads, a Task subagent with two calls of its own every third turn, a command); every 25th tool
 * result carries `image` when given.
 */
export function claudeSessionLog(events: number, image?: string): GeneratedLog {
  return collect(claudeSessionTurns(image), events);
}

/**
 * Writes the lines of a Claude Code session log: each line with its place in the conversation (`parentUuid`
 * chains to the line before; a subagent's lines are a sidechain of their own), tool results that carry
 * `image` every 25th call when given, and the counts a turn reports.
 */
class ClaudeLogWriter {
  lines: string[] = [];
  toolCalls = 0;
  images = 0;
  /** The uuid the next line names as its parent. */
  last: string | null = null;
  #n = 0;
  #time = Date.parse('2025-08-01T10:00:00Z');
  readonly #image: string | undefined;

  constructor(image: string | undefined) {
    this.#image = image;
  }

  push(fields: Json, sidechain = false): void {
    const uuid = `u-${++this.#n}`;
    this.#time += 250;
    this.lines.push(
      JSON.stringify({
        parentUuid: this.last,
        isSidechain: sidechain,
        userType: 'external',
        cwd: '/home/me/project',
        sessionId: 'bench',
        version: '1.0.71',
        ...fields,
        uuid,
        timestamp: new Date(this.#time).toISOString(),
      }),
    );
    this.last = uuid;
  }

  assistant(id: string, block: Json, sidechain = false): void {
    this.push(
      {
        type: 'assistant',
        message: { id, type: 'message', role: 'assistant', model: 'claude-opus-4-1', content: [block] },
      },
      sidechain,
    );
  }

  /** A tool call, counted. */
  toolUse(msg: string, id: string, name: string, input: Json, sidechain = false): void {
    this.toolCalls++;
    this.assistant(msg, { type: 'tool_use', id, name, input }, sidechain);
  }

  result(id: string, sidechain = false): void {
    const image = this.#image;
    const withImage = image !== undefined && (this.toolCalls + 1) % 25 === 0;
    if (withImage) this.images++;
    const n = this.#n;
    this.push(
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: withImage
                ? [
                    { type: 'text', text: 'screenshot' },
                    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
                  ]
                : `     1→export function f${n}() {\n     2→  return ${n};\n     3→}\n`,
            },
          ],
        },
        toolUseResult: { stdout: 'ok' },
      },
      sidechain,
    );
  }
}

/** The turns of {@link claudeSessionLog}, endless. */
export function* claudeSessionTurns(image?: string): LogTurns {
  const log = new ClaudeLogWriter(image);
  let counted = { toolCalls: 0, images: 0 };
  for (let turn = 1; ; turn++) {
    log.push({
      type: 'user',
      message: { role: 'user', content: `Step ${turn}: refactor the parser and run the tests` },
    });
    const msg = `msg_${turn}`;
    log.assistant(msg, {
      type: 'thinking',
      thinking: `The user wants step ${turn}. I should read the files first.`,
      signature: 'sig',
    });
    log.assistant(msg, { type: 'text', text: `I'll look at the code for step ${turn}.` });
    // Three parallel reads, then their results.
    const reads = [0, 1, 2].map((i) => `toolu_${turn}_r${i}`);
    for (const [i, id] of reads.entries()) {
      log.toolUse(msg, id, 'Read', { file_path: `/home/me/project/src/file${i}.ts` });
    }
    for (const id of reads) log.result(id);
    if (turn % 3 === 0) claudeSubagent(log, turn);
    const bash = `toolu_${turn}_bash`;
    log.toolUse(`msg_${turn}_c`, bash, 'Bash', { command: 'npm test', description: 'Run the tests' });
    log.result(bash);
    log.assistant(`msg_${turn}_d`, { type: 'text', text: `Step ${turn} is done: the tests pass.` });
    yield {
      lines: log.lines,
      toolCalls: log.toolCalls - counted.toolCalls,
      images: log.images - counted.images,
    };
    log.lines = [];
    counted = { toolCalls: log.toolCalls, images: log.images };
  }
}

/** A Task subagent with two calls of its own, in its sidechain, then the Task's result. */
function claudeSubagent(log: ClaudeLogWriter, turn: number): void {
  const task = `toolu_${turn}_task`;
  log.toolUse(`msg_${turn}_b`, task, 'Task', {
    description: 'Search tests',
    prompt: `Find the tests of step ${turn}`,
    subagent_type: 'general-purpose',
  });
  const mainLast = log.last;
  log.last = null;
  log.push({ type: 'user', message: { role: 'user', content: `Find the tests of step ${turn}` } }, true);
  for (let i = 0; i < 2; i++) {
    const id = `toolu_${turn}_s${i}`;
    log.toolUse(`msg_${turn}_s${i}`, id, 'Grep', { pattern: `step${turn}`, path: 'test' }, true);
    log.result(id, true);
  }
  log.assistant(`msg_${turn}_s9`, { type: 'text', text: `Found 2 test files for step ${turn}.` }, true);
  log.last = mainLast;
  log.result(task);
}

/**
 * A deterministic Codex session rollout of about `events` lines (as `~/.codex/sessions/…/rollout-*.jsonl`
 * holds it): per turn a `turn_context`, the user message and its `user_message` twin, reasoning and its
 * twin, three shell calls with their outputs and an `apply_patch`, the answer and its twin, a
 * `token_count`. Every 25th call output carries `image` (a `view_image`-style content list) when given.
 */
export function codexRolloutLog(events: number, image?: string): GeneratedLog {
  return collect(codexRolloutTurns(image), events);
}

/** The turns of {@link codexRolloutLog}, endless (the first carries the `session_meta` line). */
export function* codexRolloutTurns(image?: string): LogTurns {
  let lines: string[] = [];
  let time = Date.parse('2025-10-02T09:00:00Z');
  let toolCalls = 0;
  let images = 0;
  let counted = { toolCalls: 0, images: 0 };
  const push = (type: string, payload: Json) => {
    time += 200;
    lines.push(JSON.stringify({ timestamp: new Date(time).toISOString(), type, payload }));
  };
  const output = (callId: string) => {
    const withImage = image !== undefined && toolCalls % 25 === 0;
    if (withImage) images++;
    push('response_item', {
      type: 'function_call_output',
      call_id: callId,
      output: withImage
        ? [
            { type: 'input_text', text: 'screenshot' },
            { type: 'input_image', image_url: `data:image/png;base64,${image}` },
          ]
        : JSON.stringify({
            output: `README.md\nsrc\n${'x'.repeat(120)}\n`,
            metadata: { exit_code: 0, duration_seconds: 0.1 },
          }),
    });
  };
  push('session_meta', {
    id: 'bench',
    timestamp: new Date(time).toISOString(),
    cwd: '/home/me/project',
    originator: 'codex_cli_rs',
    cli_version: '0.44.0',
  });
  let turn = 0;
  for (;;) {
    turn++;
    push('turn_context', {
      cwd: '/home/me/project',
      approval_policy: 'on-request',
      sandbox_policy: { type: 'workspace-write' },
      model: 'gpt-5-codex',
      summary: 'auto',
    });
    const prompt = `Step ${turn}: refactor the parser and run the tests`;
    push('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
    push('event_msg', { type: 'user_message', message: prompt, images: [] });
    const thought = `**Planning step ${turn}**`;
    push('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: thought }],
      content: null,
      encrypted_content: 'gAAAA',
    });
    push('event_msg', { type: 'agent_reasoning', text: thought });
    for (let i = 0; i < 3; i++) {
      const callId = `call_${turn}_${i}`;
      toolCalls++;
      push('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({
          command: ['bash', '-lc', `cat src/file${i}.ts`],
          workdir: '/home/me/project',
        }),
        call_id: callId,
      });
      output(callId);
    }
    const patch = `call_${turn}_p`;
    toolCalls++;
    push('response_item', {
      type: 'custom_tool_call',
      status: 'completed',
      call_id: patch,
      name: 'apply_patch',
      input: `*** Begin Patch\n*** Update File: src/parser.ts\n@@\n-old ${turn}\n+new ${turn}\n*** End Patch\n`,
    });
    push('response_item', {
      type: 'custom_tool_call_output',
      call_id: patch,
      output: JSON.stringify({
        output: 'Success. Updated the following files:\nM src/parser.ts\n',
        metadata: { exit_code: 0, duration_seconds: 0 },
      }),
    });
    const answer = `Step ${turn} is done: the tests pass.`;
    push('response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer }],
    });
    push('event_msg', { type: 'agent_message', message: answer });
    push('event_msg', {
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: 1000 * turn,
          cached_input_tokens: 0,
          output_tokens: 80,
          reasoning_output_tokens: 0,
          total_tokens: 1000 * turn + 80,
        },
        last_token_usage: {
          input_tokens: 1000,
          cached_input_tokens: 0,
          output_tokens: 80,
          reasoning_output_tokens: 0,
          total_tokens: 1080,
        },
        model_context_window: 272000,
      },
      rate_limits: null,
    });
    yield { lines, toolCalls: toolCalls - counted.toolCalls, images: images - counted.images };
    lines = [];
    counted = { toolCalls, images };
  }
}

/**
 * A deterministic ACP session of about `events` JSON-RPC messages: per turn a prompt, a plan, a thought
 * and an answer streamed in chunks, four tool calls (`pending` → `in_progress` → `completed` with text
 * content), one of them behind a permission request and its answer, `usage_update`s, the stop reason.
 * Every 25th call's content carries `image` when given.
 */
export function acpSessionLog(events: number, image?: string): GeneratedLog {
  return collect(acpSessionTurns(image), events);
}

/** The turns of {@link acpSessionLog}, endless. */
export function* acpSessionTurns(image?: string): LogTurns {
  let lines: string[] = [];
  let toolCalls = 0;
  let images = 0;
  let counted = { toolCalls: 0, images: 0 };
  let id = 0;
  const send = (message: Json) => lines.push(JSON.stringify({ jsonrpc: '2.0', ...message }));
  const update = (u: Json) =>
    send({ method: 'session/update', params: { sessionId: 'sess_bench', update: u } });
  const chunks = (kind: string, messageId: string, text: string) => {
    for (const part of text.match(/.{1,24}/gs) ?? [])
      update({ sessionUpdate: kind, messageId, content: { type: 'text', text: part } });
  };
  let turn = 0;
  for (;;) {
    turn++;
    const prompt = ++id;
    send({
      id: prompt,
      method: 'session/prompt',
      params: {
        sessionId: 'sess_bench',
        prompt: [{ type: 'text', text: `Step ${turn}: refactor the parser and run the tests` }],
      },
    });
    update({
      sessionUpdate: 'plan',
      entries: [
        { content: `Read step ${turn}`, priority: 'high', status: 'in_progress' },
        { content: 'Run the tests', priority: 'medium', status: 'pending' },
      ],
    });
    chunks('agent_thought_chunk', `t${turn}`, `The user wants step ${turn}; I should read the files first.`);
    for (let i = 0; i < 4; i++) {
      const call = `call_${turn}_${i}`;
      toolCalls++;
      update({
        sessionUpdate: 'tool_call',
        toolCallId: call,
        title: `Reading src/file${i}.ts`,
        kind: 'read',
        status: 'pending',
        locations: [{ path: `/home/me/project/src/file${i}.ts` }],
        rawInput: { path: `/home/me/project/src/file${i}.ts` },
      });
      if (i === 3) {
        const ask = ++id;
        send({
          id: ask,
          method: 'session/request_permission',
          params: {
            sessionId: 'sess_bench',
            toolCall: { toolCallId: call },
            options: [
              { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
              { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
            ],
          },
        });
        send({ id: ask, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
      }
      update({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'in_progress' });
      const withImage = image !== undefined && toolCalls % 25 === 0;
      if (withImage) images++;
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: call,
        status: 'completed',
        content: [
          {
            type: 'content',
            content: { type: 'text', text: `export function f${i}() {\n  return ${turn};\n}\n` },
          },
          ...(withImage
            ? [{ type: 'content', content: { type: 'image', mimeType: 'image/png', data: image } }]
            : []),
        ],
      });
    }
    update({ sessionUpdate: 'usage_update', used: 1000 * turn, size: 200000 });
    chunks(
      'agent_message_chunk',
      `m${turn}`,
      `Step ${turn} is done: the parser is refactored and the tests pass.`,
    );
    send({ id: prompt, result: { stopReason: 'end_turn' } });
    yield { lines, toolCalls: toolCalls - counted.toolCalls, images: images - counted.images };
    lines = [];
    counted = { toolCalls, images };
  }
}
