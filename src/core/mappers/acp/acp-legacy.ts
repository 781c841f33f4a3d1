/**
 * Happy's legacy `{ role: 'agent', content: { type: 'acp', provider, data } }` records, what Happy's CLI
 * wrote for ACP agents (Gemini, OpenCode, …): text and reasoning, tool calls and their results, file
 * edits, permission requests, and turn markers.
 *
 * @module
 */
import type { PermissionOption } from '../../protocol/index.js';
import { placeWith } from '../place-with.js';
import { isJsonObject, type JsonObject, typeName } from '../provider-json.js';
import type { Placement, SessionWriter } from '../session-writer.js';
import { codeSpan, MAX_DESCRIPTION_LENGTH, shortPath, shortText } from '../titles.js';
import { permissionOptions } from './acp-permissions.js';

const DEFAULT_LEGACY_OPTIONS: readonly PermissionOption[] = [
  { id: 'allow', label: 'Allow', kind: 'allow-once' },
  { id: 'deny', label: 'Deny', kind: 'reject-once' },
];

function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (isJsonObject(output)) {
    for (const name of ['error', 'message', 'content', 'text']) {
      const value = output[name];
      if (typeof value === 'string' && value.length > 0) return value;
    }
  }
  return undefined;
}

/** A legacy record with its `type`; its string fields read through `text`. */
interface LegacyRecord {
  type: string;
  data: JsonObject;
  text(name: string): string | undefined;
}

/**
 * Reads one legacy record's `data` into the writer. Never throws: an unknown type is `unknown-event`,
 * a known one without the fields it needs `malformed-event`.
 */
export function readLegacyAcpRecord(writer: SessionWriter, data: unknown, place: Placement): void {
  if (!isJsonObject(data) || typeof data.type !== 'string') {
    writer.skips.skip('unknown-event', 'a legacy acp record without a type');
    return;
  }
  const record: LegacyRecord = {
    type: data.type,
    data,
    text: (name) => (typeof data[name] === 'string' ? (data[name] as string) : undefined),
  };
  const read = LEGACY_READERS.get(record.type);
  if (read === undefined) {
    writer.skips.skip('unknown-event', `legacy acp record type ${typeName(record.type)}`);
    return;
  }
  if (!read(writer, record, place)) {
    writer.skips.skip('malformed-event', `legacy acp record type ${typeName(record.type)}`);
  }
}

/** Each record type's reader: false when the record lacks what it needs. */
const LEGACY_READERS = new Map<
  string,
  (writer: SessionWriter, record: LegacyRecord, place: Placement) => boolean
>([
  ['message', text],
  ['reasoning', text],
  ['thinking', text],
  ['tool-call', toolCall],
  ['tool-result', toolResult],
  ['tool-call-result', toolResult],
  ['file-edit', fileEdit],
  ['permission-request', permissionRequest],
  ['task_started', turnStart],
  ['task_complete', turnEnd],
  ['turn_aborted', turnEnd],
  ['terminal-output', notDisplayed],
  ['token_count', notDisplayed],
]);

function text(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  const value = record.type === 'thinking' ? record.text('text') : record.text('message');
  if (value === undefined) return false;
  if (value.length === 0) writer.skips.skip('not-displayed', `an empty legacy acp ${record.type}`);
  else writer.agentText(value, placeWith(place, record.type === 'message' ? {} : { thinking: true }));
  return true;
}

function toolCall(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  const callId = record.text('callId');
  const name = record.text('name');
  if (callId === undefined || name === undefined) return false;
  const input = isJsonObject(record.data.input) ? record.data.input : {};
  const call = isJsonObject(input.toolCall) ? input.toolCall : {};
  const title = typeof call.title === 'string' && call.title.length > 0 ? call.title : name;
  writer.startCall(callId, { toolName: name, title: shortText(title), args: record.data.input ?? {} }, place);
  return true;
}

function toolResult(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  const callId = record.text('callId');
  if (callId === undefined) return false;
  const error =
    record.data.isError === true
      ? shortText(outputText(record.data.output) ?? 'The tool call failed', MAX_DESCRIPTION_LENGTH)
      : undefined;
  writer.endCall(callId, placeWith(place, error === undefined ? {} : { error }));
  return true;
}

function fileEdit(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  const id = record.text('id');
  const filePath = record.text('filePath');
  if (id === undefined || filePath === undefined) return false;
  const { type: _type, id: _id, ...args } = record.data;
  const fields = {
    toolName: 'file-edit',
    title: `Edit ${codeSpan(shortPath(filePath))}`,
    description: shortText(record.text('description') ?? '', MAX_DESCRIPTION_LENGTH),
    args,
  };
  if (writer.startCall(id, fields, place) !== undefined) writer.endCall(id, place);
  return true;
}

function permissionRequest(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  const key = record.text('permissionId');
  if (key === undefined) return false;
  const description = record.text('description') ?? '';
  if (!writer.isCallOpen(key)) {
    writer.startCall(
      key,
      { toolName: record.text('toolName') ?? 'unknown', title: shortText(description || 'Permission') },
      place,
    );
  }
  const options = Array.isArray(record.data.options) ? permissionOptions(record.data.options) : [];
  writer.requestPermission(
    key,
    {
      options: options.length > 0 ? options : [...DEFAULT_LEGACY_OPTIONS],
      ...(description ? { description } : {}),
    },
    place,
  );
  return true;
}

function turnStart(writer: SessionWriter, _record: LegacyRecord, place: Placement): boolean {
  if (writer.openTurn !== undefined)
    writer.endTurn(writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
  writer.startTurn(place);
  return true;
}

function turnEnd(writer: SessionWriter, record: LegacyRecord, place: Placement): boolean {
  if (!writer.endTurn(record.type === 'task_complete' ? 'completed' : 'cancelled', place)) {
    writer.skips.skip('out-of-order', `legacy acp ${record.type} without an open turn`);
  }
  return true;
}

function notDisplayed(writer: SessionWriter, record: LegacyRecord): boolean {
  writer.skips.skip('not-displayed', `legacy acp ${record.type}`);
  return true;
}
