/**
 * Happy's legacy `{ role: 'agent', content: { type: 'codex', data } }` records, what Happy's CLI wrote
 * for Codex sessions: `message`, `reasoning`, `tool-call` and `tool-call-result`.
 *
 * @module
 */
import { placeWith } from '../place-with.js';
import { isJsonObject, typeName } from '../provider-json.js';
import type { Placement } from '../session-writer.js';
import type { CodexSession } from './codex-session.js';
import { legacyToolCall } from './codex-tools.js';

/** Reads one legacy record's `data` into the session. */
export function readLegacyCodexRecord(session: CodexSession, data: unknown, place: Placement): void {
  const writer = session.writer;
  if (!isJsonObject(data) || typeof data.type !== 'string') {
    writer.skips.skip('unknown-event', 'a legacy codex record without a type');
    return;
  }
  switch (data.type) {
    case 'message':
    case 'reasoning':
      if (typeof data.message !== 'string') break;
      if (data.message.length > 0) {
        writer.agentText(data.message, placeWith(place, data.type === 'reasoning' ? { thinking: true } : {}));
      } else writer.skips.skip('not-displayed', `an empty legacy codex ${data.type}`);
      return;
    case 'tool-call':
      if (typeof data.callId !== 'string' || typeof data.name !== 'string') break;
      writer.startCall(data.callId, legacyToolCall(data.name, data.input), place);
      return;
    case 'tool-call-result': {
      if (typeof data.callId !== 'string') break;
      const output = isJsonObject(data.output) ? data.output : {};
      const cancelled = output.status === 'canceled' || output.status === 'cancelled';
      writer.endCall(
        data.callId,
        placeWith(place, cancelled ? { error: 'The tool call was cancelled' } : {}),
      );
      return;
    }
    default:
      writer.skips.skip('unknown-event', `legacy codex record type ${typeName(data.type)}`);
      return;
  }
  writer.skips.skip('malformed-event', `legacy codex record type ${typeName(data.type)}`);
}
