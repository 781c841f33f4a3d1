/**
 * The Claude Code mapper: the Agent SDK / `claude --output-format stream-json` messages and the session
 * JSONL Claude Code writes (`~/.claude/projects/…/<session>.jsonl`), which share their message shapes,
 * into Session Protocol v2. The mapping table and every decision: docs/mappers.md, "Claude Code".
 *
 * @module
 */
import { parseTimestamp } from '../iso-time.js';
import type { EventContext, MapperProvider, ProviderMapper } from '../mapper-provider.js';
import { placeWith } from '../place-with.js';
import { type JsonObject, jsonObject, nonEmptyString } from '../provider-json.js';
import { RecentMap, RecentSet } from '../recent.js';
import type { Placement, SessionWriter } from '../session-writer.js';
import { afterStep, eachStep, type Step, uploadStep } from '../steps.js';
import { MAX_DESCRIPTION_LENGTH } from '../titles.js';
import { approximateJsonSize, WaitingRoom } from '../waiting-room.js';
import {
  type CanUseToolRequest,
  CLAUDE_PERMISSION_OPTIONS,
  isInterruptText,
  isRejectionText,
  legacyPermissionOption,
  parseCanUseTool,
  parseControlResponse,
} from './claude-permissions.js';
import { isSubagentTool, summarizeClaudeTool } from './claude-tools.js';

type Json = JsonObject;

/** Longest `error` text the mapper writes on a `tool-call-end`, in characters. */
export const MAX_TOOL_ERROR_LENGTH = 4096;

/** Event types Claude Code and the SDK write that are not part of a transcript. */
const NOT_DISPLAYED_TYPES = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'change',
  'progress',
  'custom-title',
  'stream_event',
  'tool_progress',
  'auth_status',
  'keep_alive',
  'control_cancel_request',
  // Usage windows (the status line's "approaching your limit"); a limit that stops a turn is also an API error message, written as such.
  'rate_limit_event',
]);

/** How many assistant message ids the block dedupe remembers. */
const REMEMBERED_MESSAGES = 64;
/** How many text and thinking blocks it remembers per message (a message has a handful). */
const REMEMBERED_BLOCKS = 32;

/** A text or thinking block written for an assistant message. */
interface WrittenBlock {
  thinking: boolean;
  text: string;
}

/**
 * Drops a forgotten block's text: the block may sit in the old generation (V8 pretenures what usually
 * outlives a young collection, as these do), where it keeps its text, often kilobytes, alive and copied
 * by every young collection until a full one finds the block dead (`waiting-room.ts`, `#forget`).
 */
function forgetText(block: WrittenBlock): void {
  (block as { text: string | undefined }).text = undefined;
}

function errorText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) return 'the tool reported an error';
  return trimmed.length > MAX_TOOL_ERROR_LENGTH ? `${trimmed.slice(0, MAX_TOOL_ERROR_LENGTH - 1)}…` : trimmed;
}

function normalizePrompt(text: string): string {
  return text.trim();
}

/** Media inside a content block: base64 data and what the block says about it. */
interface InlineMedia {
  data: string;
  mimeType?: string;
  noun: 'image' | 'document';
}

/** Reads an `image`/`document` block; `undefined` with a reason for sources that are not inline base64. */
function inlineMedia(block: Json): InlineMedia | 'unsupported' {
  const source = jsonObject(block.source);
  const noun = block.type === 'document' ? 'document' : 'image';
  if (source?.type !== 'base64' || typeof source.data !== 'string') return 'unsupported';
  const mimeType = nonEmptyString(source.media_type);
  return { data: source.data, noun, ...(mimeType === undefined ? {} : { mimeType }) };
}

/**
 * Who wrote a message: the main agent (`{}`), a subagent under its spawning call, or `{ waitFor }` when
 * what decides it has not been seen yet (the spawning call, or the sidechain line it continues).
 */
type Attribution = Pick<Placement, 'parent' | 'agentId'> | { waitFor: string };

class ClaudeMapper implements ProviderMapper {
  readonly #writer: SessionWriter;
  // What the mapper remembers of the lines it read is the recent part (recent.ts): a log may be long.
  readonly #seenUuids = new RecentSet<string>();
  readonly #blocks = new Map<string, WrittenBlock[]>();
  /** Task calls whose sidechain has not shown itself yet, by prompt. */
  readonly #taskPrompts = new RecentMap<string, string[]>();
  /** Sidechain message uuid → its subagent (spawning call key and agent key). */
  readonly #sidechains = new RecentMap<string, { parent?: string; agentKey: string }>();
  /**
   * Events waiting for what they refer to: SDK subagent messages for their spawning call
   * (`call:<id>`), sidechain lines for the line they continue (`uuid:<uuid>`; Happy's stored records
   * can arrive out of order).
   */
  readonly #waiting = new WaitingRoom<{ event: Json; context: EventContext }>();
  /** Tool results that came before their call, by its id. */
  readonly #waitingResults = new WaitingRoom<{ block: Json; place: Placement }>();
  /** `can_use_tool` request id → the call it asked about. */
  readonly #requests = new RecentMap<string, string>();
  /** The writer's message count just after the last prompt: equal while the prompt is unanswered. */
  #afterPrompt: number | undefined;
  #flushing = false;

  constructor(writer: SessionWriter) {
    this.#writer = writer;
  }

  push(event: unknown, context: EventContext): Step {
    const e = jsonObject(event);
    if (e === undefined) {
      this.#writer.skips.skip(
        'unknown-event',
        `a ${event === null ? 'null' : typeof event} instead of an object`,
      );
      return;
    }
    return this.#dispatch(e, context);
  }

  end(): Step {
    // What waited for something that never came: subagent messages go under their own agent without
    // parentId; results of calls never started are counted (unknown-call).
    this.#flushing = true;
    return afterStep(this.#releaseEveryWaiting(), () =>
      eachStep(this.#waitingResults.releaseAll(), ({ block, place }) => this.#toolResult(block, place)),
    );
  }

  /** Dispatches every waiting event, a queue at a time, until none waits. */
  #releaseEveryWaiting(): Step {
    for (
      let queue = this.#waiting.releaseFirst();
      queue !== undefined;
      queue = this.#waiting.releaseFirst()
    ) {
      const step = eachStep(queue, ({ event, context }) => this.#dispatch(event, context));
      if (step !== undefined) return step.then(() => this.#releaseEveryWaiting());
    }
  }

  /** Dispatches the events that waited for `key`. */
  #release(key: string): Step {
    return eachStep(this.#waiting.release(key), ({ event, context }) => this.#dispatch(event, context));
  }

  /**
   * Reads what the waiting rooms let go to stay within their bounds as at the end of the input: an
   * event without what it waited for, a result without its call (counted `unknown-call`).
   */
  #readLetGo(
    events: { event: Json; context: EventContext }[],
    results: { block: Json; place: Placement }[],
  ): Step {
    if (events.length === 0 && results.length === 0) return;
    const flushing = this.#flushing;
    this.#flushing = true;
    const restore = () => {
      this.#flushing = flushing;
    };
    let step: Step;
    try {
      step = afterStep(
        eachStep(events, ({ event, context }) => this.#dispatch(event, context)),
        () => eachStep(results, ({ block, place }) => this.#toolResult(block, place)),
      );
    } catch (error) {
      restore();
      throw error;
    }
    if (step === undefined) restore();
    else return step.finally(restore);
  }

  // --- dispatch ---

  #dispatch(event: Json, context: EventContext): Step {
    const type = typeof event.type === 'string' ? event.type : undefined;
    const uuid = nonEmptyString(event.uuid);
    if (uuid !== undefined && this.#seenUuids.has(uuid)) {
      this.#writer.skips.skip('duplicate', `${type ?? 'event'} ${uuid} written twice`);
      return;
    }
    const time = this.#time(event, context);
    switch (type) {
      case 'assistant':
      case 'user': {
        const attribution = this.#attribute(event);
        if ('waitFor' in attribution) {
          const letGo = this.#waiting.hold(
            attribution.waitFor,
            { event, context },
            approximateJsonSize(event),
          );
          return this.#readLetGo(letGo, []);
        }
        if (uuid !== undefined) this.#seenUuids.add(uuid);
        const place: Placement = placeWith(attribution, time === undefined ? {} : { time });
        const step = type === 'assistant' ? this.#assistant(event, place) : this.#user(event, place);
        if (uuid === undefined || (step === undefined && this.#waiting.size === 0)) return step;
        return afterStep(step, () => (this.#waiting.size > 0 ? this.#release(`uuid:${uuid}`) : undefined));
      }
      case 'system':
        this.#system(event, time);
        break;
      case 'result':
        this.#result(event, time);
        break;
      case 'attachment':
        this.#attachment(event, time);
        break;
      case 'control_request':
        return afterStep(this.#controlRequest(event, time), () => this.#read(uuid));
      case 'control_response':
        this.#controlResponse(event, time);
        break;
      case 'conversation_reset':
        this.#writer.service('Conversation cleared: the agent starts again from an empty context', {
          ...(time === undefined ? {} : { time }),
        });
        break;
      default:
        if (type !== undefined && NOT_DISPLAYED_TYPES.has(type)) {
          this.#writer.skips.skip('not-displayed', type);
        } else {
          this.#writer.skips.skip(
            'unknown-event',
            type === undefined ? 'an event without a type' : `type "${type.slice(0, 40)}"`,
          );
        }
        // Its uuid still counts as seen: a sidechain line may continue from it.
        break;
    }
    return this.#read(uuid);
  }

  /** An event other than a message was read: its uuid is seen, and what waited for it follows it. */
  #read(uuid: string | undefined): Step {
    if (uuid === undefined) return;
    this.#seenUuids.add(uuid);
    if (this.#waiting.size > 0) return this.#release(`uuid:${uuid}`);
  }

  #time(event: Json, context: EventContext): number | undefined {
    if (typeof event.timestamp === 'string') {
      const parsed = parseTimestamp(event.timestamp);
      if (Number.isFinite(parsed)) return parsed;
    }
    return context.time;
  }

  // --- subagents ---

  /** Which subagent wrote `event` (see docs/mappers.md, "Subagents"), remembering it for the event's children. */
  #attribute(event: Json): Attribution {
    const explicit = nonEmptyString(event.parent_tool_use_id) ?? nonEmptyString(event.parentToolUseId);
    let found: { parent?: string; agentKey: string } | undefined;
    if (explicit !== undefined) {
      if (this.#writer.callIdOf(explicit) === undefined) {
        if (!this.#flushing) return { waitFor: `call:${explicit}` };
        found = { agentKey: explicit };
      } else {
        found = { parent: explicit, agentKey: explicit };
      }
    } else {
      const parentUuid = nonEmptyString(event.parentUuid);
      if (parentUuid !== undefined) found = this.#sidechains.get(parentUuid);
      if (found === undefined && event.isSidechain === true) {
        if (parentUuid !== undefined && !this.#seenUuids.has(parentUuid) && !this.#flushing) {
          return { waitFor: `uuid:${parentUuid}` };
        }
        const spawning = this.#spawningTask(event);
        if (typeof spawning === 'object') return spawning;
        const parent = spawning;
        found =
          parent === undefined
            ? { agentKey: `sidechain:${nonEmptyString(event.uuid) ?? 'unknown'}` }
            : { parent, agentKey: parent };
      }
    }
    if (found === undefined) return {};
    const uuid = nonEmptyString(event.uuid);
    if (uuid !== undefined) this.#sidechains.set(uuid, found);
    const agentId = this.#writer.agentIdFor(found.agentKey);
    return found.parent === undefined ? { agentId } : { parent: found.parent, agentId };
  }

  /**
   * The Task call a sidechain's first message belongs to: the Task with its prompt (waiting for it
   * when it has not come yet), else, at the end or without a prompt, the only Task still waiting.
   */
  #spawningTask(event: Json): string | { waitFor: string } | undefined {
    const content = jsonObject(event.message)?.content;
    let prompt: string | undefined;
    if (typeof content === 'string') prompt = content;
    else if (Array.isArray(content)) {
      const first = jsonObject(content[0]);
      if (first?.type === 'text' && typeof first.text === 'string') prompt = first.text;
    }
    if (prompt !== undefined) {
      const queue = this.#taskPrompts.get(normalizePrompt(prompt));
      const key = queue?.shift();
      if (key !== undefined) {
        if (queue!.length === 0) this.#taskPrompts.delete(normalizePrompt(prompt));
        return key;
      }
      if (!this.#flushing) return { waitFor: `prompt:${normalizePrompt(prompt)}` };
    }
    // A Task that has returned keeps its prompt (its sidechain may be stored after its result), but
    // only running ones are candidates for a sidechain whose prompt matches none.
    const waiting = [...this.#taskPrompts.values()].flat().filter((key) => this.#writer.isCallOpen(key));
    if (waiting.length !== 1) return undefined;
    const key = waiting[0]!;
    this.#forgetTask(key);
    return key;
  }

  #forgetTask(key: string): void {
    for (const [prompt, keys] of this.#taskPrompts.entries()) {
      const at = keys.indexOf(key);
      if (at < 0) continue;
      keys.splice(at, 1);
      if (keys.length === 0) this.#taskPrompts.delete(prompt);
    }
  }

  // --- assistant ---

  #assistant(event: Json, place: Placement): Step {
    const message = jsonObject(event.message);
    const isApiError =
      event.isApiErrorMessage === true ||
      (typeof event.error === 'string' && message?.model === '<synthetic>');
    const content = message?.content;
    if (isApiError) {
      this.#apiError(event, content, place);
      return;
    }
    if (typeof content === 'string') {
      this.#agentText(content, false, nonEmptyString(message?.id), place);
      return;
    }
    if (!Array.isArray(content)) {
      this.#writer.skips.skip('malformed-event', 'an assistant message without content blocks');
      return;
    }
    const messageId = nonEmptyString(message?.id);
    return eachStep(content, (item) => {
      const block = jsonObject(item);
      if (block === undefined) {
        this.#writer.skips.skip('malformed-event', 'a content block that is not an object');
        return;
      }
      return this.#assistantBlock(block, messageId, place);
    });
  }

  #assistantBlock(block: Json, messageId: string | undefined, place: Placement): Step {
    const type = typeof block.type === 'string' ? block.type : '';
    switch (type) {
      case 'text':
        this.#agentText(block.text, false, messageId, place);
        return;
      case 'thinking':
        this.#agentText(block.thinking, true, messageId, place);
        return;
      case 'redacted_thinking':
        this.#writer.skips.skip('not-displayed', 'redacted thinking');
        return;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use': {
        const key = nonEmptyString(block.id);
        const name = nonEmptyString(block.name);
        if (key === undefined || name === undefined) {
          this.#writer.skips.skip('malformed-event', `a ${type} block without id or name`);
          return;
        }
        return this.#startTool(key, name, block.input, place);
      }
      case 'image': {
        const media = inlineMedia(block);
        if (media === 'unsupported') {
          this.#writer.skips.skip('unsupported-content', 'an image that is not inline base64');
          return;
        }
        return uploadStep(
          this.#writer.media(
            media.data,
            { role: 'agent', noun: media.noun, ...(media.mimeType ? { mimeType: media.mimeType } : {}) },
            place,
          ),
        );
      }
      default:
        break;
    }
    // Results of server-side tools arrive inside the assistant message (web search, code execution, MCP).
    const serverResult = type.endsWith('_tool_result') ? nonEmptyString(block.tool_use_id) : undefined;
    if (serverResult !== undefined) {
      const resultContent = jsonObject(block.content);
      const failed =
        block.is_error === true ||
        (typeof resultContent?.type === 'string' && resultContent.type.endsWith('_error'));
      this.#writer.endCall(
        serverResult,
        placeWith(
          place,
          failed ? { error: errorText(String(resultContent?.error_code ?? 'the server tool failed')) } : {},
        ),
      );
      return;
    }
    this.#writer.skips.skip('unsupported-content', `assistant block "${type.slice(0, 40)}"`);
  }

  /** Writes agent text once per assistant message (Claude Code writes some lines twice). */
  #agentText(value: unknown, thinking: boolean, messageId: string | undefined, place: Placement): void {
    if (typeof value !== 'string') {
      this.#writer.skips.skip(
        'malformed-event',
        thinking ? 'a thinking block without text' : 'a text block without text',
      );
      return;
    }
    if (value.trim().length === 0) {
      this.#writer.skips.skip('not-displayed', thinking ? 'empty thinking' : 'empty text');
      return;
    }
    if (messageId !== undefined) {
      let written = this.#blocks.get(messageId);
      if (written === undefined) {
        written = [];
        this.#blocks.set(messageId, written);
        if (this.#blocks.size > REMEMBERED_MESSAGES) {
          const [oldest, blocks] = this.#blocks.entries().next().value!;
          this.#blocks.delete(oldest);
          for (const block of blocks) forgetText(block);
        }
      }
      // Compared, not hashed: a block may be many kilobytes, and hashing it (as a set's key) cost twice
      // parsing its line, where a comparison stops at the first character that differs.
      for (const block of written) {
        if (block.text === value && block.thinking === thinking) {
          this.#writer.skips.skip('duplicate', `a text block of message ${messageId} written twice`);
          return;
        }
      }
      if (written.length === REMEMBERED_BLOCKS) forgetText(written.shift()!);
      written.push({ thinking, text: value });
    }
    this.#writer.agentText(value, thinking ? placeWith(place, { thinking }) : place);
  }

  /** Starts a Claude tool call; a subagent call then gets the SDK messages that came before it. */
  #startTool(key: string, name: string, input: unknown, place: Placement): Step {
    const args = jsonObject(input) ?? (input === undefined ? {} : { input });
    const summary = summarizeClaudeTool(name, args);
    const callId = this.#writer.startCall(
      key,
      {
        toolName: name,
        title: summary.title,
        description: summary.description,
        args,
        ...(summary.agentTitle === undefined ? {} : { agentTitle: summary.agentTitle }),
      },
      place,
    );
    if (callId === undefined) return;
    // Most calls have nothing waiting for them: no promise to wait on then.
    const waiting = this.#waiting.size > 0 || this.#waitingResults.size > 0;
    if (!isSubagentTool(name)) return waiting ? this.#releaseCall(key) : undefined;
    const prompt = typeof args.prompt === 'string' ? normalizePrompt(args.prompt) : '';
    if (prompt.length === 0) return this.#releaseCall(key);
    const queue = this.#taskPrompts.get(prompt) ?? [];
    queue.push(key);
    this.#taskPrompts.set(prompt, queue);
    return afterStep(this.#release(`prompt:${prompt}`), () => this.#releaseCall(key));
  }

  /** A call started: the subagent messages and results that came before it follow it now. */
  #releaseCall(key: string): Step {
    return afterStep(this.#waiting.size > 0 ? this.#release(`call:${key}`) : undefined, () =>
      eachStep(this.#waitingResults.release(key), ({ block, place }) => this.#toolResult(block, place)),
    );
  }

  #apiError(event: Json, content: unknown, place: Placement): void {
    const texts = Array.isArray(content)
      ? content
          .map((block) => jsonObject(block))
          .filter((block) => block?.type === 'text' && typeof block.text === 'string')
          .map((block) => block!.text as string)
      : typeof content === 'string'
        ? [content]
        : [];
    const code = [
      nonEmptyString(event.error),
      typeof event.apiErrorStatus === 'number' ? `HTTP ${event.apiErrorStatus}` : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(', ');
    const text = texts.join('\n').trim();
    this.#writer.ensureTurn(place);
    this.#writer.service(`API error${code ? ` (${code})` : ''}${text ? `: ${text}` : ''}`, place);
    // A subagent's failed request fails the subagent's call, not the turn; the main agent's fails the turn.
    if (place.parent === undefined) this.#writer.endTurn('failed', place);
  }

  // --- user ---

  #user(event: Json, place: Placement): Step {
    if (event.isMeta === true || event.isSynthetic === true) return this.#contextMessage(event, place);
    if (event.isCompactSummary === true) {
      this.#writer.skips.skip('not-displayed', 'the summary a compaction left for the model');
      return;
    }
    const content = jsonObject(event.message)?.content;
    const inSubagent = place.agentId !== undefined;
    if (typeof content === 'string') {
      if (isInterruptText(content)) this.#interrupt(place);
      else if (inSubagent) this.#writer.agentText(content, place);
      else return this.#prompt([{ type: 'text', text: content }], place);
      return;
    }
    if (!Array.isArray(content)) {
      this.#writer.skips.skip('malformed-event', 'a user message without content');
      return;
    }
    const blocks = content.map((item) => jsonObject(item) ?? {});
    if (!inSubagent && !blocks.some((block) => block.type === 'tool_result')) {
      return this.#prompt(blocks, place);
    }
    return eachStep(blocks, (block) =>
      block.type === 'tool_result'
        ? this.#toolResult(block, place)
        : this.#userBlock(block, inSubagent ? 'agent' : 'user', place),
    );
  }

  /**
   * A message Claude Code wrote for the model (`isMeta`, `isSynthetic`: a slash command's expansion, a
   * hook's context): its text is not displayed, but images in it are the user's (an image pasted into a
   * slash command is sent with the expansion) and are kept as the user's photos.
   */
  #contextMessage(event: Json, place: Placement): Step {
    const content = jsonObject(event.message)?.content;
    const media = Array.isArray(content)
      ? content
          .map((item) => jsonObject(item) ?? {})
          .filter((b) => b.type === 'image' || b.type === 'document')
      : [];
    if (media.length === 0 || (Array.isArray(content) && media.length < content.length)) {
      this.#writer.skips.skip('not-displayed', 'a context message for the model (isMeta)');
    }
    const role = place.agentId === undefined ? 'user' : 'agent';
    return eachStep(media, (block) => this.#userBlock(block, role, place));
  }

  /** A prompt: ends the turn before it (the agent answered it), then the user's text and media. */
  #prompt(blocks: Json[], place: Placement): Step {
    const texts = blocks.filter((block) => block.type === 'text' && typeof block.text === 'string');
    if (
      texts.length > 0 &&
      texts.length === blocks.length &&
      texts.every((block) => isInterruptText(block.text as string))
    ) {
      this.#interrupt(place);
      return;
    }
    this.#writer.endTurn('completed', place);
    return afterStep(
      eachStep(blocks, (block) => this.#userBlock(block, 'user', place)),
      () => {
        this.#afterPrompt = this.#writer.messageCount;
      },
    );
  }

  /** True when a prompt was written and nothing after it: the agent has not begun to answer. */
  #promptUnanswered(): boolean {
    return this.#writer.openTurn === undefined && this.#afterPrompt === this.#writer.messageCount;
  }

  /** A text, image or document block on the user side (`role`: `agent` inside a subagent). */
  #userBlock(block: Json, role: 'user' | 'agent', place: Placement): Step {
    if (block.type === 'text') {
      const text = block.text;
      if (typeof text !== 'string') this.#writer.skips.skip('malformed-event', 'a text block without text');
      else if (isInterruptText(text)) this.#interrupt(place);
      else if (text.trim().length === 0) this.#writer.skips.skip('not-displayed', 'empty text');
      else if (role === 'agent') this.#writer.agentText(text, place);
      else this.#writer.userText(text, place);
      return;
    }
    if (block.type === 'image' || block.type === 'document') {
      const media = inlineMedia(block);
      if (media === 'unsupported') {
        this.#writer.skips.skip('unsupported-content', `a ${String(block.type)} that is not inline base64`);
        return;
      }
      return uploadStep(
        this.#writer.media(
          media.data,
          { role, noun: media.noun, ...(media.mimeType ? { mimeType: media.mimeType } : {}) },
          place,
        ),
      );
    }
    this.#writer.skips.skip('unsupported-content', `user block "${String(block.type).slice(0, 40)}"`);
  }

  #toolResult(block: Json, place: Placement): Step {
    const key = nonEmptyString(block.tool_use_id);
    if (key === undefined) {
      this.#writer.skips.skip('malformed-event', 'a tool_result without tool_use_id');
      return;
    }
    if (this.#writer.callIdOf(key) === undefined && !this.#flushing) {
      // Stored records can arrive out of order: the result waits for its call.
      return this.#readLetGo(
        [],
        this.#waitingResults.hold(key, { block, place }, approximateJsonSize(block)),
      );
    }
    const texts: string[] = [];
    const media: InlineMedia[] = [];
    const content = block.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const item of content) {
        const part = jsonObject(item);
        if (part?.type === 'text' && typeof part.text === 'string') texts.push(part.text);
        else if (part?.type === 'image' || part?.type === 'document') {
          const found = inlineMedia(part);
          if (found === 'unsupported')
            this.#writer.skips.skip(
              'unsupported-content',
              `a ${String(part.type)} in a tool result that is not inline base64`,
            );
          else media.push(found);
        }
      }
    }
    const text = texts.join('\n');
    const isError = block.is_error === true;
    this.#permissionFromResult(key, text, isError, block.permissions, place);
    const end = () => {
      this.#writer.endCall(key, isError ? placeWith(place, { error: errorText(text) }) : place);
    };
    if (media.length === 0) return end();
    const inCall: Placement = placeWith(place, { parent: key });
    const uploads = eachStep(media, (item) =>
      this.#writer.media(
        item.data,
        { role: 'agent', noun: item.noun, ...(item.mimeType ? { mimeType: item.mimeType } : {}) },
        inCall,
      ),
    );
    return afterStep(uploads, end);
  }

  /**
   * The permission trail a tool result implies: Happy's recorded decision (legacy `permissions`), the
   * answer to a pending `can_use_tool` request (rejected, unanswered when interrupted, else allowed:
   * the tool ran), or a rejection seen only in the result's text.
   */
  #permissionFromResult(
    key: string,
    text: string,
    isError: boolean,
    permissions: unknown,
    place: Placement,
  ): void {
    const writer = this.#writer;
    if (!writer.isCallOpen(key)) return;
    const recorded = legacyPermissionOption(permissions);
    if (recorded !== undefined) {
      if (!writer.hasPendingPermission(key))
        writer.requestPermission(key, { options: [...CLAUDE_PERMISSION_OPTIONS] }, place);
      writer.respondPermission(key, recorded, place);
      return;
    }
    if (writer.hasPendingPermission(key)) {
      if (isRejectionText(text)) writer.respondPermission(key, 'reject-once', place);
      else if (!isInterruptText(text) && !/^(?:Error: )?Permission prompt was aborted/.test(text)) {
        writer.respondPermission(key, 'allow-once', place);
      }
      return;
    }
    if (isError && isRejectionText(text) && !writer.wasPermissionAsked(key)) {
      writer.requestPermission(key, { options: [...CLAUDE_PERMISSION_OPTIONS] }, place);
      writer.respondPermission(key, 'reject-once', place);
    }
  }

  /**
   * The user stopped the agent: a service note and the turn ends `cancelled`. Stopped before it wrote
   * anything, the answer is still a turn, empty and cancelled, so the prompt's outcome shows.
   */
  #interrupt(place: Placement): void {
    const at: Placement = place.time === undefined ? {} : { time: place.time };
    if (this.#promptUnanswered()) this.#writer.startTurn(at);
    this.#writer.service('Interrupted by the user', at);
    this.#writer.endTurn('cancelled', at);
  }

  // --- system, result, attachments ---

  #system(event: Json, time: number | undefined): void {
    const at: Placement = time === undefined ? {} : { time };
    const subtype = typeof event.subtype === 'string' ? event.subtype : '';
    if (subtype === 'compact_boundary') {
      const meta = jsonObject(event.compact_metadata) ?? jsonObject(event.compactMetadata);
      const trigger = nonEmptyString(meta?.trigger);
      const tokens = meta?.pre_tokens ?? meta?.preTokens;
      const detail = [
        trigger,
        typeof tokens === 'number' ? `${tokens.toLocaleString('en-US')} tokens before` : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(', ');
      this.#writer.service(`Context compacted${detail ? ` (${detail})` : ''}`, at);
      return;
    }
    if (subtype === 'task_notification') {
      this.#taskNotification(event, at);
      return;
    }
    const content = nonEmptyString(event.content);
    if (
      subtype === 'api_error' ||
      (content !== undefined && (event.level === 'error' || event.level === 'warning'))
    ) {
      this.#writer.service(content ?? 'API error; Claude Code is retrying', at);
      return;
    }
    this.#writer.skips.skip('not-displayed', `system message "${subtype.slice(0, 40)}"`);
  }

  /**
   * A task (a background command or subagent) ended. While the call that started it is open, its end
   * says so and the notification is not displayed; a task that outlived its call (run in the background)
   * gets a `service` note with its summary.
   */
  #taskNotification(event: Json, at: Placement): void {
    const call = nonEmptyString(event.tool_use_id);
    if (call !== undefined && this.#writer.isCallOpen(call)) {
      this.#writer.skips.skip('not-displayed', 'a task notification of a call still running');
      return;
    }
    const status =
      event.status === 'failed' ? 'failed' : event.status === 'stopped' ? 'was stopped' : 'finished';
    const summary = nonEmptyString(event.summary) ?? nonEmptyString(event.description);
    this.#writer.service(`Background task ${status}${summary ? `: ${summary}` : ''}`, at);
  }

  #result(event: Json, time: number | undefined): void {
    const at: Placement = time === undefined ? {} : { time };
    const failed = event.subtype !== 'success' || event.is_error === true;
    // A prompt that failed before any answer still gets its turn, so the failure shows.
    if (failed && this.#promptUnanswered()) this.#writer.startTurn(at);
    if (this.#writer.openTurn === undefined) {
      this.#writer.skips.skip('not-displayed', 'a result after its turn ended');
      return;
    }
    for (const denial of Array.isArray(event.permission_denials) ? event.permission_denials : []) {
      const key = nonEmptyString(jsonObject(denial)?.tool_use_id);
      if (key !== undefined && this.#writer.hasPendingPermission(key))
        this.#writer.respondPermission(key, 'reject-once', at);
    }
    const subtype = typeof event.subtype === 'string' ? event.subtype : '';
    if (subtype === 'success' && event.is_error !== true) {
      this.#writer.endTurn('completed', at);
      return;
    }
    const errors = Array.isArray(event.errors)
      ? event.errors.filter((e): e is string => typeof e === 'string')
      : [];
    const reason =
      subtype === 'error_max_turns'
        ? 'Stopped: the maximum number of turns was reached'
        : subtype === 'error_max_budget_usd'
          ? 'Stopped: the budget was reached'
          : (nonEmptyString(event.result) ?? (errors.join('\n') || 'The turn failed'));
    this.#writer.service(reason, at);
    this.#writer.endTurn('failed', at);
  }

  #attachment(event: Json, time: number | undefined): void {
    const attachment = jsonObject(event.attachment);
    const condition = nonEmptyString(attachment?.condition);
    if (
      attachment?.type !== 'goal_status' ||
      typeof attachment.met !== 'boolean' ||
      condition === undefined
    ) {
      this.#writer.skips.skip('not-displayed', `attachment "${String(attachment?.type).slice(0, 40)}"`);
      return;
    }
    const reason = nonEmptyString(attachment.reason);
    const text = !attachment.met
      ? `Goal set: ${condition}`
      : attachment.sentinel === true
        ? `Goal cleared: ${condition}`
        : `Goal met: ${condition}${reason ? `\n\n${reason}` : ''}`;
    this.#writer.service(text, time === undefined ? {} : { time });
  }

  // --- permissions (stream-json control protocol) ---

  #controlRequest(event: Json, time: number | undefined): Step {
    const request = parseCanUseTool(event);
    if (request === undefined) {
      this.#writer.skips.skip('not-displayed', 'a control request other than can_use_tool');
      return;
    }
    const at: Placement = time === undefined ? {} : { time };
    const key = request.toolUseId;
    if (key === undefined) {
      // Older Claude Code: the newest open call of that tool is the one asking.
      const open = this.#writer
        .openCalls()
        .reverse()
        .find((open) => this.#writer.toolNameOf(open) === request.toolName);
      return this.#askPermission(request, open, at);
    }
    if (this.#writer.callIdOf(key) !== undefined) return this.#askPermission(request, key, at);
    // The request came before the assistant message naming the call: start it from the request.
    return afterStep(this.#startTool(key, request.toolName, request.input, at), () =>
      this.#askPermission(request, key, at),
    );
  }

  /** The permission request of a `can_use_tool` control request, inside the call known by `key`. */
  #askPermission(request: CanUseToolRequest, key: string | undefined, at: Placement): void {
    if (key === undefined) {
      this.#writer.skips.skip(
        'unmatched-permission',
        `a permission request for ${request.toolName.slice(0, 40)} without an open call`,
      );
      return;
    }
    const asked = this.#writer.requestPermission(
      key,
      {
        options: [...CLAUDE_PERMISSION_OPTIONS],
        ...(request.title === undefined ? {} : { title: request.title }),
        ...(request.description === undefined
          ? {}
          : { description: request.description.slice(0, MAX_DESCRIPTION_LENGTH) }),
      },
      at,
    );
    if (asked) this.#requests.set(request.requestId, key);
  }

  #controlResponse(event: Json, time: number | undefined): void {
    const answer = parseControlResponse(event);
    if (answer === undefined) {
      this.#writer.skips.skip('not-displayed', 'a control response that is not a permission answer');
      return;
    }
    const key = this.#requests.get(answer.requestId);
    if (key === undefined) {
      this.#writer.skips.skip('unmatched-permission', 'a permission answer to an unknown request');
      return;
    }
    this.#requests.delete(answer.requestId);
    this.#writer.respondPermission(key, answer.optionId, time === undefined ? {} : { time });
  }
}

/**
 * Claude Code: SDK / stream-json messages and session JSONL lines.
 *
 * @example
 * ```ts
 * const mapper = createAgentMapper(claudeMapperProvider, { media });
 * ```
 */
export const claudeMapperProvider: MapperProvider = {
  name: 'claude',
  summary: 'Claude Code: Agent SDK / --output-format stream-json messages, or the session JSONL it writes',
  create: (writer) => new ClaudeMapper(writer),
};
