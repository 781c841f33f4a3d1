/**
 * ACP tool calls into v2: a call announced `pending` is held while its input may still stream, updates
 * merge into it (they replace the fields they carry), and it is written as one `tool-call-start` once it
 * runs, ends, shows media or is asked about; its content's media go inside it (each image once, though
 * updates repeat the list), and its `completed` / `failed` status ends it.
 *
 * @module
 */
import { placeWith } from '../place-with.js';
import { isJsonObject, type JsonObject } from '../provider-json.js';
import type { CallFields, Placement, SessionWriter } from '../session-writer.js';
import { eachStep, type Step } from '../steps.js';
import { MAX_DESCRIPTION_LENGTH, shortText } from '../titles.js';
import { writeContentBlock } from './acp-content.js';
import type { ToolCallContent, ToolCallFields } from './acp-events.js';

/** A cheap fingerprint of base64 data, to upload an image a tool call repeats (content is replaced, not appended) once. */
function fingerprint(data: string): string {
  return `${data.length}:${data.slice(0, 64)}:${data.slice(-64)}`;
}

/** The text of a failed tool call: its first text content, or its raw output's error, or a default. */
function failureText(fields: ToolCallFields): string {
  for (const item of fields.content ?? []) {
    if (item.type === 'content' && item.content?.type === 'text' && item.content.text) {
      return shortText(item.content.text, MAX_DESCRIPTION_LENGTH);
    }
  }
  const raw = fields.rawOutput;
  if (typeof raw === 'string' && raw.length > 0) return shortText(raw, MAX_DESCRIPTION_LENGTH);
  if (isJsonObject(raw)) {
    const error = raw.error ?? raw.message;
    if (typeof error === 'string' && error.length > 0) return shortText(error, MAX_DESCRIPTION_LENGTH);
    if (isJsonObject(error) && typeof error.message === 'string')
      return shortText(error.message, MAX_DESCRIPTION_LENGTH);
  }
  return 'The tool call failed';
}

/** What a tool call's start says: `kind` is the tool name, `title` the title, `rawInput` the args. */
function callFields(fields: ToolCallFields): CallFields {
  const kind = fields.kind ?? 'other';
  const fullTitle = fields.title ?? '';
  const title = fullTitle.length > 0 ? shortText(fullTitle) : kind;
  const locations = (fields.locations ?? []).map((location) =>
    typeof location.line === 'number' ? `${location.path}:${location.line}` : location.path,
  );
  const description = [title !== fullTitle ? fullTitle : '', locations.join(', ')]
    .filter((part) => part.length > 0)
    .join(' — ');
  let args: JsonObject;
  if (isJsonObject(fields.rawInput)) args = fields.rawInput;
  else if (fields.rawInput !== undefined && fields.rawInput !== null) args = { input: fields.rawInput };
  else {
    // No raw input: what the call shows (its diffs, its locations) is all there is to keep.
    const diffs = (fields.content ?? [])
      .filter((item) => item.type === 'diff' && typeof item.path === 'string')
      .map((item) => ({ path: item.path!, oldText: item.oldText ?? null, newText: item.newText ?? '' }));
    args = diffs.length === 1 ? { ...diffs[0]! } : diffs.length > 1 ? { diffs } : {};
    if ((fields.locations ?? []).length > 0) args.locations = fields.locations;
  }
  return { toolName: kind, title, description: shortText(description, MAX_DESCRIPTION_LENGTH), args };
}

/** `next` over `previous`: a tool call update replaces the fields it carries. */
function mergeFields(previous: ToolCallFields, next: ToolCallFields): ToolCallFields {
  const merged: ToolCallFields = { ...previous };
  for (const [name, value] of Object.entries(next) as [keyof ToolCallFields, unknown][]) {
    if (value !== undefined && value !== null) (merged as JsonObject)[name] = value;
  }
  return merged;
}

/** A held call is written once it runs, ends, has content to show, or is asked about. */
function mustStart(fields: ToolCallFields): boolean {
  if (fields.status !== undefined && fields.status !== null && fields.status !== 'pending') return true;
  return (fields.content ?? []).some((item) => item.type === 'content' && item.content?.type !== 'text');
}

/** The tool calls of one ACP session (see the module comment). */
export class AcpToolCalls {
  readonly #writer: SessionWriter;
  /** Told before a call is written: agent output (it may open a turn). */
  readonly #beforeOutput: () => void;
  /** Tool calls announced `pending` and not yet written: their input may still be streaming. */
  readonly #pending = new Map<string, ToolCallFields>();
  /** Image fingerprints already uploaded per call, in the open turn. */
  readonly #images = new Map<string, Set<string>>();

  constructor(writer: SessionWriter, beforeOutput: () => void) {
    this.#writer = writer;
    this.#beforeOutput = beforeOutput;
  }

  /** True while some call is held, not yet written. */
  get holding(): boolean {
    return this.#pending.size > 0;
  }

  /** A `tool_call` or `tool_call_update`. */
  update(kind: 'tool_call' | 'tool_call_update', fields: ToolCallFields, place: Placement): Step {
    const writer = this.#writer;
    const key = fields.toolCallId;
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      const merged = mergeFields(pending, fields);
      this.#pending.set(key, merged);
      if (mustStart(merged)) return this.#materialize(key, place);
      return;
    }
    if (writer.isCallOpen(key)) return this.#apply(key, fields, place);
    if (kind === 'tool_call_update' && (writer.callIdOf(key) !== undefined || !fields.title)) {
      // An update for a call that ended (or that was never announced and says too little to show).
      writer.skips.skip(
        writer.callIdOf(key) !== undefined ? 'duplicate' : 'unknown-call',
        'tool_call_update',
      );
      return;
    }
    // A new call (agents also announce a call by its first update): held while its input may still stream.
    this.#pending.set(key, fields);
    if (mustStart(fields)) return this.#materialize(key, place);
  }

  /**
   * A permission request names its call: a held call is written with what the request adds, a call
   * never announced starts from the request. False (counted) when the call has already ended; else
   * what writing it waits for, if anything.
   */
  asked(fields: ToolCallFields, place: Placement): Step | false {
    const writer = this.#writer;
    const key = fields.toolCallId;
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      this.#pending.set(key, mergeFields(pending, fields));
      return this.#materialize(key, place);
    }
    if (!writer.isCallOpen(key)) {
      if (writer.callIdOf(key) !== undefined) {
        writer.skips.skip('unmatched-permission', 'a permission request for a call that ended');
        return false;
      }
      this.#pending.set(key, fields);
      return this.#materialize(key, place);
    }
  }

  /** Held calls at the end of their turn: written, so the turn's end closes them. */
  writeHeld(): void {
    for (const [key, fields] of this.#pending) {
      this.#beforeOutput();
      this.#writer.startCall(key, callFields(fields), { ifEnded: 'new-call' });
    }
    this.#pending.clear();
  }

  /** The turn ended: the next turn's images are new. */
  turnEnded(): void {
    this.#images.clear();
  }

  #materialize(key: string, place: Placement): Step {
    const fields = this.#pending.get(key);
    if (fields === undefined) return;
    this.#pending.delete(key);
    this.#beforeOutput();
    if (
      this.#writer.startCall(key, callFields(fields), placeWith(place, { ifEnded: 'new-call' })) === undefined
    )
      return;
    return this.#apply(key, fields, place);
  }

  /** What an update of an open call says: new media in its content, and its end. */
  #apply(key: string, fields: ToolCallFields, place: Placement): Step {
    const content = fields.content;
    const step =
      content === undefined || content.length === 0
        ? undefined
        : eachStep(content, (item) => this.#applyContent(key, item, place));
    if (step === undefined) this.#endIfDone(key, fields, place);
    else return step.then(() => this.#endIfDone(key, fields, place));
  }

  /** A `completed` or `failed` status ends the call. */
  #endIfDone(key: string, fields: ToolCallFields, place: Placement): void {
    if (fields.status === 'completed') this.#writer.endCall(key, place);
    else if (fields.status === 'failed')
      this.#writer.endCall(key, placeWith(place, { error: failureText(fields) }));
  }

  /** One item of an open call's content: its media, once, inside the call. */
  #applyContent(key: string, item: ToolCallContent, place: Placement): Step {
    const block = item.type === 'content' ? item.content : undefined;
    if (block === undefined || block.type === 'text') return;
    const data = block.data ?? block.resource?.blob;
    if (typeof data === 'string') {
      let seen = this.#images.get(key);
      if (seen === undefined) {
        seen = new Set();
        this.#images.set(key, seen);
      }
      const print = fingerprint(data);
      if (seen.has(print)) return; // the same content again: updates replace the list
      seen.add(print);
    }
    return writeContentBlock(this.#writer, block, 'agent', placeWith(place, { parent: key }));
  }
}
