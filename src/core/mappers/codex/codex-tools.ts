/**
 * What a Codex tool call is, in v2's terms: the `tool-call-start` fields (tool name, title, description,
 * args) of each kind of call Codex makes, whichever of its formats named it, and what a call's output
 * says about how it ended.
 *
 * @module
 */

import { isJsonObject, type JsonObject } from '../provider-json.js';
import type { CallFields } from '../session-writer.js';
import { codeSpan, MAX_DESCRIPTION_LENGTH, shortPath, shortText } from '../titles.js';

const SHELLS = new Set([
  'bash',
  'sh',
  'zsh',
  '/bin/bash',
  '/bin/sh',
  '/bin/zsh',
  '/usr/bin/bash',
  'pwsh',
  'powershell',
]);

/** The command a person reads: `bash -lc 'x'` shows as `x`, other argv joined with shell quoting. */
function commandText(command: unknown): string {
  if (typeof command === 'string') {
    // `codex exec --json` joins argv with shell quoting: `bash -lc 'npm test'` shows as `npm test`.
    const wrapped = /^(?:\/bin\/|\/usr\/bin\/)?(?:bash|sh|zsh) -l?c (.+)$/s.exec(command);
    if (!wrapped) return command;
    const script = wrapped[1]!;
    return /^'.*'$/s.test(script) ? script.slice(1, -1).replace(/'\\''/g, "'") : script;
  }
  if (!Array.isArray(command)) return '';
  const parts = command.filter((part): part is string => typeof part === 'string');
  if (parts.length === 3 && SHELLS.has(parts[0]!) && /^-l?c$/.test(parts[1]!)) return parts[2]!;
  return parts
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

/** A shell command (`CodexBash`, Happy's name): `args.command` as Codex gave it. */
export function bashCall(command: unknown, extra: JsonObject = {}): CallFields {
  const text = commandText(command);
  return {
    toolName: 'CodexBash',
    title: text.length > 0 ? `Run ${codeSpan(text)}` : 'Run a command',
    description: shortText(text, MAX_DESCRIPTION_LENGTH),
    args: { command: command ?? text, ...extra },
  };
}

/** A patch (`CodexPatch`, Happy's name): `args.changes` is path → change. */
export function patchCall(changes: JsonObject, extra: JsonObject = {}): CallFields {
  const paths = Object.keys(changes);
  const title = paths.length === 1 ? `Edit ${codeSpan(shortPath(paths[0]!))}` : `Edit ${paths.length} files`;
  return {
    toolName: 'CodexPatch',
    title,
    description: shortText(paths.join(', '), MAX_DESCRIPTION_LENGTH),
    args: { changes, ...extra },
  };
}

/** An MCP tool call, named `mcp__<server>__<tool>` as Happy's app expects for its MCP view. */
export function mcpCall(server: string, tool: string, args: unknown): CallFields {
  return {
    toolName: `mcp__${server}__${tool}`,
    title: shortText(`${server}.${tool}`),
    description: `MCP tool ${tool} of server ${server}`,
    args: args === null || args === undefined ? {} : args,
  };
}

/** A web search. */
export function webSearchCall(query: string): CallFields {
  return {
    toolName: 'WebSearch',
    title: query.length > 0 ? `Search the web for ${codeSpan(query)}` : 'Search the web',
    description: shortText(query, MAX_DESCRIPTION_LENGTH),
    args: { query },
  };
}

const COLLAB_TITLES: Record<string, string> = {
  spawn_agent: 'Start a subagent',
  spawn: 'Start a subagent',
  send_input: 'Message a subagent',
  interaction: 'Message a subagent',
  wait: 'Wait for a subagent',
  waiting: 'Wait for a subagent',
  close_agent: 'Close a subagent',
  close: 'Close a subagent',
};

/** A call to another Codex agent (`CodexSubagent`); a spawn is titled, as an agent, by its prompt. */
export function collabCall(tool: string, prompt: string | null | undefined, args: JsonObject): CallFields {
  const spawns = tool === 'spawn_agent' || tool === 'spawn';
  return {
    toolName: 'CodexSubagent',
    title: COLLAB_TITLES[tool] ?? 'Subagent',
    description: prompt ? shortText(prompt, MAX_DESCRIPTION_LENGTH) : '',
    args,
    ...(spawns && prompt ? { agentTitle: shortText(prompt, 60) } : {}),
  };
}

/** The paths of an `apply_patch` input (`*** Add File: path`, …) as a changes record. */
export function patchChanges(patch: string): JsonObject {
  const changes: JsonObject = {};
  for (const match of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
    changes[match[2]!.trim()] = { type: match[1]!.toLowerCase() };
  }
  return changes;
}

/** A function call's `arguments` text: its JSON, or `{ input: text }` when it is not JSON. */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.length > 0 ? { input: text } : {};
  }
}

/** A rollout `function_call` as a call start (plans are handled before this). */
export function functionCall(name: string, args: unknown): CallFields {
  const fields = isJsonObject(args) ? args : {};
  switch (name) {
    case 'shell':
    case 'container.exec':
    case 'local_shell':
    case 'shell_command': {
      const { command, workdir, ...rest } = fields;
      return bashCall(command, workdir === undefined ? { ...rest } : { cwd: workdir, ...rest });
    }
    case 'exec_command': {
      const { cmd, workdir, ...rest } = fields;
      return bashCall(cmd, workdir === undefined ? { ...rest } : { cwd: workdir, ...rest });
    }
    case 'apply_patch': {
      const patch = typeof fields.input === 'string' ? fields.input : '';
      return patchCall(patchChanges(patch), { patch });
    }
    case 'view_image': {
      const path = typeof fields.path === 'string' ? fields.path : '';
      return {
        toolName: 'view_image',
        title: path ? `View ${codeSpan(shortPath(path))}` : 'View an image',
        description: path,
        args,
      };
    }
    default:
      return { toolName: name, title: shortText(name), description: '', args };
  }
}

/** A rollout `custom_tool_call` (free-form input) as a call start. */
export function customToolCall(name: string, input: string): CallFields {
  return name === 'apply_patch'
    ? patchCall(patchChanges(input), { patch: input })
    : { toolName: name, title: shortText(name), args: { input } };
}

/** The `cwd` and `parsed_cmd` of a command event, for its call's args. */
export function commandExtras(event: {
  cwd?: string | undefined;
  parsed_cmd?: unknown[] | undefined;
}): JsonObject {
  const extras: JsonObject = {};
  if (event.cwd !== undefined) extras.cwd = event.cwd;
  if (event.parsed_cmd !== undefined) extras.parsed_cmd = event.parsed_cmd;
  return extras;
}

/** A legacy Happy codex `tool-call` (names Happy's CLI used: CodexBash, CodexPatch, …) as a call start. */
export function legacyToolCall(name: string, input: unknown): CallFields {
  const fields = isJsonObject(input) ? input : {};
  if (name === 'CodexBash') {
    const { command, ...rest } = fields;
    return bashCall(command, rest);
  }
  if (name === 'CodexPatch' && isJsonObject(fields.changes)) {
    const { changes, ...rest } = fields;
    return patchCall(changes, rest);
  }
  const title =
    typeof fields.title === 'string' && fields.title.length > 0 ? shortText(fields.title) : shortText(name);
  return { toolName: name, title, description: '', args: input ?? {} };
}

// --- what a call's output says ---------------------------------------------------------------------

/** The `error` of a command that exited with `exitCode` (none for 0 or no code). */
export function exitCodeError(exitCode: number | null | undefined): string | undefined {
  return typeof exitCode === 'number' && exitCode !== 0 ? `Command exited with code ${exitCode}` : undefined;
}

/** The error of a command result: a non-zero exit code in Codex's JSON or text output forms. */
export function outputError(output: unknown): string | undefined {
  if (isJsonObject(output)) {
    if (output.success === false) {
      return typeof output.content === 'string' && output.content.length > 0
        ? shortText(output.content, MAX_DESCRIPTION_LENGTH)
        : 'The tool call failed';
    }
    return undefined;
  }
  if (typeof output !== 'string') return undefined;
  if (output.startsWith('{')) {
    const tail = metadataTailExitCode(output);
    if (tail !== undefined) return exitCodeError(tail);
    try {
      const parsed: unknown = JSON.parse(output);
      const exit =
        isJsonObject(parsed) && isJsonObject(parsed.metadata) ? parsed.metadata.exit_code : undefined;
      return typeof exit === 'number' ? exitCodeError(exit) : undefined;
    } catch {
      // plain text that happens to start with a brace
    }
  }
  const exit = /^Exit code: (-?\d+)/.exec(output);
  if (exit && exit[1] !== '0') return `Command exited with code ${exit[1]}`;
  return undefined;
}

/** How the metadata member of Codex's JSON output begins, as codex-rs writes it (no spaces, this key order). */
const METADATA_MEMBER = ',"metadata":{"exit_code":';
/** The rest of that member to the end of the text: an integer exit code, a JSON number of seconds, `}}`. */
const METADATA_REST =
  /(-?(?:0|[1-9]\d*)),"duration_seconds":-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\}\}$/y;

/**
 * The exit code of Codex's JSON output read from its last member, `"metadata":{"exit_code":N,
 * "duration_seconds":S}`, when the text ends with exactly that: what comes before is the command's
 * output, which nothing here reads, and parsing it whole was most of a Codex result's cost. In a valid
 * JSON text ending so, that member is the top-level object's last (its quotes are bare, so not inside a
 * string), hence the one `JSON.parse` keeps: the same code. `undefined` for any other ending (spaces,
 * other keys, another order, a code that is not an integer): the caller parses the text then.
 */
export function metadataTailExitCode(text: string): number | undefined {
  const at = text.lastIndexOf(METADATA_MEMBER);
  if (at < 0) return undefined;
  METADATA_REST.lastIndex = at + METADATA_MEMBER.length;
  const match = METADATA_REST.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** The images of a function output given as a content-item list (`input_image` data URLs). */
export function outputImages(output: unknown): string[] {
  const items = Array.isArray(output)
    ? output
    : isJsonObject(output) && Array.isArray(output.content_items)
      ? output.content_items
      : [];
  const images: string[] = [];
  for (const item of items) {
    if (isJsonObject(item) && item.type === 'input_image' && typeof item.image_url === 'string')
      images.push(item.image_url);
  }
  return images;
}

/** MCP content blocks of type `image` (`{ type, data, mimeType }`). */
export function mcpImages(content: readonly unknown[]): { data: string; mimeType?: string }[] {
  const images: { data: string; mimeType?: string }[] = [];
  for (const block of content) {
    if (isJsonObject(block) && block.type === 'image' && typeof block.data === 'string') {
      images.push({
        data: block.data,
        ...(typeof block.mimeType === 'string' ? { mimeType: block.mimeType } : {}),
      });
    }
  }
  return images;
}

/** `AgentStatus` of a collab event: an error message when the agent errored. */
export function agentStatusError(status: unknown): string | undefined {
  if (isJsonObject(status) && typeof status.errored === 'string')
    return status.errored || 'The subagent failed';
  if (status === 'errored' || status === 'not_found')
    return `The subagent ${status === 'errored' ? 'failed' : 'was not found'}`;
  return undefined;
}
