/**
 * The transcript fold: turns a flat stream into the tree an app renders, with one `switch (node.type)`.
 *
 * - Top level: turns (`turn`) and the messages written between turns, in stream order.
 * - Inside a turn: its messages in order; a tool call is one `tool-call` node (start, end, status,
 *   permission audit trail); media and text stay where they were written.
 * - Nesting: a message with `parentId` goes inside that tool call, at any depth.
 * - Subagents: inside a container, messages whose `agentId` differs from the container's own agent are
 *   grouped in one `agent` node per `agentId`, titled with the spawning call's `agentTitle`.
 * - Permission messages are folded into their call's `permissions` trail (request, response, chosen
 *   option and kind, times).
 *
 * The fold is total: it never throws, whatever the stream. A message it cannot attach (a `tool-call-end`
 * without a start, a response without a request) stays in place as itself, so an invalid stream still
 * renders; run the stream validator for guarantees.
 *
 * @module
 */
import type { PermissionOptionKind, TurnStatus } from './fields.js';
import type {
  FileMessage,
  PermissionOption,
  PermissionRequestMessage,
  PermissionResponseMessage,
  PhotoMessage,
  ServiceMessage,
  SessionMessage,
  TextMessage,
  ToolCallEndMessage,
  ToolCallStartMessage,
  TurnEndMessage,
  TurnStartMessage,
  VideoMessage,
} from './messages.js';

/** One permission request of a tool call and what became of it. */
export interface PermissionTrailEntry {
  /** The `permission-request` message. */
  request: PermissionRequestMessage;
  /** The `permission-response` that answered it, if any yet. */
  response?: PermissionResponseMessage;
  /** The option the user chose (from the request's options). */
  chosen?: PermissionOption;
  /** Kind of the chosen option. */
  kind?: PermissionOptionKind;
  /** `pending` until answered; then `allowed` (allow-*) or `rejected` (reject-*). */
  decision: 'pending' | 'allowed' | 'rejected';
  /** `request.time`. */
  requestedAt: number;
  /** `response.time`, once answered. */
  respondedAt?: number;
}

/** A turn: from its `turn-start` (absent when the stream began mid-turn) to its `turn-end` (absent while open). */
export interface TurnNode {
  type: 'turn';
  /** The turn id. */
  turn: string;
  /** `open` until the `turn-end`, then its status. */
  status: 'open' | TurnStatus;
  /** The `turn-start` message (absent for a turn the stream began in the middle of). */
  start?: TurnStartMessage;
  /** The `turn-end` message, once written. */
  end?: TurnEndMessage;
  /** Time of the first message of the turn. */
  startTime: number;
  /** `end.time`, once ended. */
  endTime?: number;
  /** The turn's messages, calls and subagent groups in stream order. */
  children: TranscriptNode[];
}

/** A tool call: its start, its end once written, its permission trail and everything it spawned. */
export interface ToolCallNode {
  type: 'tool-call';
  /** From the start: `callId`, `toolName`, `title` (inline markdown), `description`, `args`. */
  callId: string;
  toolName: string;
  title: string;
  description: string;
  args: Record<string, unknown>;
  /** Label of the subagent this call spawns, if it does. */
  agentTitle?: string;
  parentId?: string;
  agentId?: string;
  /**
   * `running` until `tool-call-end`; then `completed`, or `failed` when the end carries an error;
   * `abandoned` when its turn ended without ending it.
   */
  status: 'running' | 'completed' | 'failed' | 'abandoned';
  /** The end's error text, when it failed. */
  error?: string;
  /** The `tool-call-start` message. */
  start: ToolCallStartMessage;
  /** The `tool-call-end` message, once written. */
  end?: ToolCallEndMessage;
  /** `start.time`. */
  startTime: number;
  /** `end.time`, once ended. */
  endTime?: number;
  /** Every permission request of this call, in order, with its answer. */
  permissions: PermissionTrailEntry[];
  /** Messages with `parentId` = this call (subagents grouped into `agent` nodes). */
  children: TranscriptNode[];
}

/** The messages of one subagent inside a container, titled by the spawning call. */
export interface AgentGroupNode {
  type: 'agent';
  agentId: string;
  /** `agentTitle` of the spawning tool call, when there is one. */
  title?: string;
  /** callId of the spawning tool call, when the group sits inside one. */
  parentCallId?: string;
  /** The subagent's messages and calls in stream order. */
  children: TranscriptNode[];
}

/** A message shown as itself: text, media or service. */
export type ContentMessage = TextMessage | PhotoMessage | VideoMessage | FileMessage | ServiceMessage;

/**
 * A message the fold could not attach (only in invalid streams): an end without a start, a permission
 * message without its call, a second turn boundary.
 */
export type UnattachedMessage =
  | TurnStartMessage
  | TurnEndMessage
  | ToolCallStartMessage
  | ToolCallEndMessage
  | PermissionRequestMessage
  | PermissionResponseMessage;

/** Anything in the tree; switch on `type`. */
export type TranscriptNode = TurnNode | ToolCallNode | AgentGroupNode | ContentMessage | UnattachedMessage;

/** The folded stream. */
export interface Transcript {
  /** Top-level nodes in stream order. */
  items: TranscriptNode[];
  /** Every tool call by callId (the first, if a callId was reused). */
  calls: ReadonlyMap<string, ToolCallNode>;
  /** Every turn by id (the latest, if a turn id was reused). */
  turns: ReadonlyMap<string, TurnNode>;
}

// The newest request still waiting for an answer (a loop: Array.prototype.findLast is missing on older engines).
function lastUnanswered(trail: PermissionTrailEntry[]): PermissionTrailEntry | undefined {
  for (let i = trail.length - 1; i >= 0; i--) if (trail[i]!.response === undefined) return trail[i];
  return undefined;
}

interface Container {
  children: TranscriptNode[];
  /** The agent that owns the container (the call's agentId); other agentIds are grouped. */
  owner: string | undefined;
  call: ToolCallNode | undefined;
  groups: Map<string, AgentGroupNode>;
}

/** The fold's state while it reads a stream: the tree so far, and where the next message goes. */
class TranscriptFolder {
  readonly items: TranscriptNode[] = [];
  readonly calls = new Map<string, ToolCallNode>();
  readonly turns = new Map<string, TurnNode>();
  readonly #containers = new WeakMap<object, Container>();
  readonly #callTurn = new Map<ToolCallNode, TurnNode | undefined>();
  readonly #top: Container = { children: this.items, owner: undefined, call: undefined, groups: new Map() };
  #openTurn: TurnNode | undefined;

  /** Adds one message to the tree. */
  add(message: SessionMessage): void {
    switch (message.type) {
      case 'turn-start':
        this.#turnStart(message);
        break;
      case 'turn-end':
        this.#turnEnd(message);
        break;
      case 'tool-call-start':
        this.#toolCallStart(message);
        break;
      case 'tool-call-end':
        this.#toolCallEnd(message);
        break;
      case 'permission-request':
        this.#permissionRequest(message);
        break;
      case 'permission-response':
        this.#permissionResponse(message);
        break;
      default:
        this.#placeInPlace(message);
        break;
    }
  }

  /** The tree, once every message was added: calls whose turn ended without them are `abandoned`. */
  finish(): Transcript {
    for (const [node, turn] of this.#callTurn) {
      if (node.status === 'running' && turn?.end !== undefined) node.status = 'abandoned';
    }
    return { items: this.items, calls: this.calls, turns: this.turns };
  }

  #turnStart(message: TurnStartMessage): void {
    const existing = this.turns.get(message.turn);
    if (existing !== undefined && existing.start === undefined && existing.end === undefined) {
      existing.start = message; // an implicit head turn whose start arrived late: keep it
      this.#openTurn = existing;
      return;
    }
    const node = this.#newTurn(message.turn, message.time);
    node.start = message;
    this.#openTurn = node;
  }

  #turnEnd(message: TurnEndMessage): void {
    let node = this.turns.get(message.turn);
    if (node === undefined) node = this.#newTurn(message.turn, message.time); // stream began at the end of a turn
    if (node.end !== undefined) {
      this.#placeInPlace(message);
      return;
    }
    node.end = message;
    node.status = message.status;
    node.endTime = message.time;
    if (this.#openTurn === node) this.#openTurn = undefined;
  }

  #toolCallStart(message: ToolCallStartMessage): void {
    const { container, turn } = this.#placeFor(message);
    if (this.calls.has(message.callId)) {
      this.#place(container, message, message.agentId);
      return;
    }
    const node: ToolCallNode = {
      type: 'tool-call',
      callId: message.callId,
      toolName: message.toolName,
      title: message.title,
      description: message.description,
      args: message.args,
      status: 'running',
      start: message,
      startTime: message.time,
      permissions: [],
      children: [],
    };
    if (message.agentTitle !== undefined) node.agentTitle = message.agentTitle;
    if (message.parentId !== undefined) node.parentId = message.parentId;
    if (message.agentId !== undefined) node.agentId = message.agentId;
    this.calls.set(message.callId, node);
    this.#callTurn.set(node, turn);
    this.#place(container, node, message.agentId);
  }

  #toolCallEnd(message: ToolCallEndMessage): void {
    const node = this.calls.get(message.callId);
    if (node === undefined || node.end !== undefined) {
      this.#placeInPlace(message);
      return;
    }
    node.end = message;
    node.endTime = message.time;
    if (message.error !== undefined) {
      node.status = 'failed';
      node.error = message.error;
    } else {
      node.status = 'completed';
    }
  }

  #permissionRequest(message: PermissionRequestMessage): void {
    const node = this.calls.get(message.callId);
    if (node === undefined) {
      this.#placeInPlace(message);
      return;
    }
    node.permissions.push({ request: message, decision: 'pending', requestedAt: message.time });
  }

  #permissionResponse(message: PermissionResponseMessage): void {
    const node = this.calls.get(message.callId);
    const entry = node === undefined ? undefined : lastUnanswered(node.permissions);
    const chosen = entry?.request.options.find((option) => option.id === message.optionId);
    if (entry === undefined || chosen === undefined) {
      this.#placeInPlace(message);
      return;
    }
    entry.response = message;
    entry.chosen = chosen;
    entry.kind = chosen.kind;
    entry.decision = chosen.kind.startsWith('allow') ? 'allowed' : 'rejected';
    entry.respondedAt = message.time;
  }

  #containerOf(node: TurnNode | ToolCallNode): Container {
    let container = this.#containers.get(node);
    if (container === undefined) {
      container =
        node.type === 'turn'
          ? { children: node.children, owner: undefined, call: undefined, groups: new Map() }
          : { children: node.children, owner: node.agentId, call: node, groups: new Map() };
      this.#containers.set(node, container);
    }
    return container;
  }

  #newTurn(turn: string, time: number): TurnNode {
    const node: TurnNode = { type: 'turn', turn, status: 'open', startTime: time, children: [] };
    this.turns.set(turn, node);
    this.items.push(node);
    return node;
  }

  /** Where a message goes: its parent call, else its turn, else the open turn, else the top level. */
  #placeFor(message: SessionMessage): { container: Container; turn: TurnNode | undefined } {
    const parent = message.parentId === undefined ? undefined : this.calls.get(message.parentId);
    if (parent !== undefined)
      return { container: this.#containerOf(parent), turn: this.#callTurn.get(parent) };
    if (message.turn !== undefined) {
      let turn = this.turns.get(message.turn);
      if (turn === undefined) {
        // The stream began in the middle of this turn.
        turn = this.#newTurn(message.turn, message.time);
        this.#openTurn = turn;
      }
      return { container: this.#containerOf(turn), turn };
    }
    if (this.#openTurn !== undefined)
      return { container: this.#containerOf(this.#openTurn), turn: this.#openTurn };
    return { container: this.#top, turn: undefined };
  }

  /** Puts `node` in `container`, or in its group for `agentId` when another agent wrote it. */
  #place(container: Container, node: TranscriptNode, agentId: string | undefined): void {
    if (agentId === undefined || agentId === container.owner) {
      container.children.push(node);
      return;
    }
    let group = container.groups.get(agentId);
    if (group === undefined) {
      group = { type: 'agent', agentId, children: [] };
      if (container.call !== undefined) {
        group.parentCallId = container.call.callId;
        if (container.call.agentTitle !== undefined) group.title = container.call.agentTitle;
      }
      container.groups.set(agentId, group);
      container.children.push(group);
    }
    group.children.push(node);
  }

  #placeInPlace(message: SessionMessage): void {
    this.#place(this.#placeFor(message).container, message, message.agentId);
  }
}

/**
 * Folds a stream of messages into turns, tool calls, subagent groups and permission trails.
 *
 * @example
 * ```ts
 * const { items } = foldTranscript(messages);
 * for (const node of items) {
 *   switch (node.type) {
 *     case 'turn': renderTurn(node); break;
 *     case 'text': renderText(node.text); break;
 *     case 'photo': renderPhoto(node.ref, node.thumbhash); break;
 *     // ...
 *   }
 * }
 * ```
 */
export function foldTranscript(messages: readonly SessionMessage[]): Transcript {
  const folder = new TranscriptFolder();
  for (const message of messages) folder.add(message);
  return folder.finish();
}
