/**
 * The Codex mapper: what OpenAI's Codex CLI writes, into Session Protocol v2. Each line says which of
 * Codex's formats it is, and goes to that format's reader; the readers share one {@link CodexSession},
 * so a log may mix formats:
 *
 * - `codex exec --json` events (`exec-reader.ts`);
 * - session rollout lines `{ timestamp, type, payload }` (`rollout-reader.ts`);
 * - protocol events (`EventMsg`), bare, as `{ id, msg }` or in `codex mcp`'s `codex/event`
 *   notifications (`event-reader.ts`), and approval answers as
 *   submissions `{ id, op: { type: 'exec_approval' | 'patch_approval', … } }` (`CodexSession`);
 * - Happy's legacy `{ type: 'codex', data }` records, through {@link ProviderMapper.pushLegacy}
 *   (`legacy-reader.ts`).
 *
 * Every decision where the design leaves room is in docs/mappers.md ("Codex").
 *
 * @module
 */
import type { EventContext, MapperProvider, ProviderMapper } from '../mapper-provider.js';
import { isJsonObject, typeName } from '../provider-json.js';
import type { SessionWriter } from '../session-writer.js';
import type { Step } from '../steps.js';
import { CodexSession } from './codex-session.js';
import { EventReader } from './event-reader.js';
import { ExecReader, isExecEventType } from './exec-reader.js';
import { readLegacyCodexRecord } from './legacy-reader.js';
import { isRolloutLine, RolloutReader } from './rollout-reader.js';

class CodexMapper implements ProviderMapper {
  readonly #session: CodexSession;
  readonly #exec: ExecReader;
  readonly #events: EventReader;
  readonly #rollout: RolloutReader;

  constructor(writer: SessionWriter) {
    this.#session = new CodexSession(writer);
    this.#exec = new ExecReader(this.#session);
    this.#events = new EventReader(this.#session);
    this.#rollout = new RolloutReader(this.#session, this.#events);
  }

  push(line: unknown, context: EventContext): Step {
    if (!isJsonObject(line)) {
      this.#session.writer.skips.skip('unknown-event', `a ${typeName(line)} instead of an object`);
      return;
    }
    // `codex mcp` sends its events as JSON-RPC notifications: `{ method: 'codex/event', params: { id, msg } }`.
    const event = line.method === 'codex/event' && isJsonObject(line.params) ? line.params : line;
    if (isRolloutLine(event)) return this.#rollout.read(event);
    const place = { time: context.time };
    if (isJsonObject(event.msg)) return this.#events.read(event.msg, 'events', place);
    if (isJsonObject(event.op)) this.#session.answerApproval(event, place);
    else if (isExecEventType(event.type)) return this.#exec.read(event.type, event, place);
    else if (typeof event.type === 'string') return this.#events.read(event, 'events', place);
    else this.#session.writer.skips.skip('unknown-event', 'an object without a type');
  }

  pushLegacy(data: unknown, context: EventContext): void {
    readLegacyCodexRecord(this.#session, data, { time: context.time });
  }

  end(): void {
    this.#session.flushSearches();
  }
}

/**
 * The Codex provider: `happy-media map --from codex` and `createAgentMapper('codex')`; also reads
 * Happy's legacy `{ type: 'codex', data }` records.
 *
 * @example
 * ```ts
 * const mapper = createAgentMapper(codexProvider, { media });
 * for (const line of rollout.split('\n').filter(Boolean)) send(await mapper.push(JSON.parse(line)));
 * send(await mapper.end());
 * ```
 */
export const codexProvider: MapperProvider = {
  name: 'codex',
  summary:
    'Codex: `codex exec --json` events, session rollouts (rollout-*.jsonl), protocol events and approvals',
  legacyContentType: 'codex',
  create: (writer) => new CodexMapper(writer),
};
