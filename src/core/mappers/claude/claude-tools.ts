/**
 * What a Claude Code tool call says about itself: a short title and a description (inline markdown,
 * as the design asks) from the tool's name and input, and whether it spawns a subagent.
 *
 * @module
 */
import { codeSpan, MAX_DESCRIPTION_LENGTH, shortPath, shortText } from '../titles.js';

/** Tools whose call runs a subagent (its messages are sidechain messages). */
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);

/** True when a call of `toolName` spawns a subagent. */
export function isSubagentTool(toolName: string): boolean {
  return SUBAGENT_TOOLS.has(toolName);
}

/** What the mapper writes on a Claude tool call's `tool-call-start`. */
export interface ClaudeToolSummary {
  title: string;
  description: string;
  /** For subagent tools: the subagent's label. */
  agentTitle?: string;
}

function text(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

function describe(value: string | undefined, fallback: string): string {
  return value === undefined ? fallback : shortText(value, MAX_DESCRIPTION_LENGTH);
}

function lineRange(input: Record<string, unknown>): string {
  const offset = typeof input.offset === 'number' ? input.offset : undefined;
  const limit = typeof input.limit === 'number' ? input.limit : undefined;
  if (offset === undefined && limit === undefined) return '';
  const from = offset ?? 1;
  return limit === undefined ? ` from line ${from}` : ` (lines ${from}–${from + limit - 1})`;
}

/** `mcp__server__tool` → `{ server, tool }`. */
function mcpName(toolName: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(toolName);
  return match ? { server: match[1]!, tool: match[2]! } : undefined;
}

/**
 * The title and description of a Claude Code tool call: `Run \`npm test\``, `Read \`…/src/index.ts\``,
 * `Search for \`TODO\``; a Task/Agent call is titled by its `description` and labels its subagent.
 *
 * @example
 * ```ts
 * summarizeClaudeTool('Bash', { command: 'ls -la', description: 'List files' });
 * // { title: 'Run `ls -la`', description: 'List files' }
 * ```
 */
export function summarizeClaudeTool(toolName: string, input: Record<string, unknown>): ClaudeToolSummary {
  const path = text(input, 'file_path') ?? text(input, 'notebook_path') ?? text(input, 'path');
  switch (toolName) {
    case 'Bash': {
      const command = text(input, 'command');
      return {
        title: command ? `Run ${codeSpan(command)}` : 'Run a shell command',
        description: describe(
          text(input, 'description'),
          command ? shortText(command, MAX_DESCRIPTION_LENGTH) : '',
        ),
      };
    }
    case 'BashOutput':
      return { title: 'Read shell output', description: 'Read the output of a background shell' };
    case 'KillShell':
    case 'KillBash':
      return { title: 'Stop a background shell', description: '' };
    case 'Read':
      return {
        title: path ? `Read ${codeSpan(shortPath(path))}` : 'Read a file',
        description: path ? `Read ${path}${lineRange(input)}` : '',
      };
    case 'Write':
      return { title: path ? `Write ${codeSpan(shortPath(path))}` : 'Write a file', description: path ?? '' };
    case 'Edit':
    case 'MultiEdit':
      return { title: path ? `Edit ${codeSpan(shortPath(path))}` : 'Edit a file', description: path ?? '' };
    case 'NotebookEdit':
      return {
        title: path ? `Edit notebook ${codeSpan(shortPath(path))}` : 'Edit a notebook',
        description: path ?? '',
      };
    case 'Glob': {
      const pattern = text(input, 'pattern');
      return {
        title: pattern ? `Find files ${codeSpan(pattern)}` : 'Find files',
        description: path ? `in ${path}` : '',
      };
    }
    case 'Grep': {
      const pattern = text(input, 'pattern');
      return {
        title: pattern ? `Search for ${codeSpan(pattern)}` : 'Search files',
        description: path ? `in ${path}` : '',
      };
    }
    case 'LS':
      return { title: path ? `List ${codeSpan(shortPath(path))}` : 'List files', description: path ?? '' };
    case 'WebFetch': {
      const url = text(input, 'url');
      return {
        title: url ? `Fetch ${codeSpan(url)}` : 'Fetch a web page',
        description: describe(text(input, 'prompt'), url ?? ''),
      };
    }
    case 'WebSearch':
    case 'web_search': {
      const query = text(input, 'query');
      return { title: query ? `Search the web for ${codeSpan(query)}` : 'Search the web', description: '' };
    }
    case 'TodoWrite': {
      const todos = Array.isArray(input.todos) ? input.todos.length : undefined;
      return {
        title: 'Update the to-do list',
        description: todos === undefined ? '' : `${todos} item${todos === 1 ? '' : 's'}`,
      };
    }
    case 'ExitPlanMode':
      return { title: 'Present the plan', description: describe(text(input, 'plan'), '') };
    case 'AskUserQuestion':
      return { title: 'Ask the user', description: '' };
    case 'advisor':
      return { title: 'Consult the advisor', description: 'A stronger model reviews the work so far' };
    default:
      break;
  }
  if (isSubagentTool(toolName)) {
    const label = text(input, 'description') ?? text(input, 'subagent_type');
    const kind = text(input, 'subagent_type');
    return {
      title: label ? shortText(label) : 'Run a subagent',
      description: describe(text(input, 'prompt'), kind ?? ''),
      agentTitle: shortText(label ?? kind ?? 'Subagent'),
    };
  }
  const mcp = mcpName(toolName);
  if (mcp) {
    return {
      title: `Call ${codeSpan(mcp.tool)} (${shortText(mcp.server, 40)})`,
      description: describe(text(input, 'description'), ''),
    };
  }
  const description = text(input, 'description');
  return { title: shortText(toolName), description: describe(description, '') };
}
