/**
 * What a provider mapper is: a {@link MapperProvider} (one file per provider) whose `create` returns the
 * event handler that translates that provider's events into calls on a {@link SessionWriter}.
 * Everything stateful about the v2 stream (ids, times, turns, calls, permissions, media, skips) lives in
 * the writer; the handler holds only what is specific to its provider (buffers, id maps, dedupe sets).
 * The providers and the mapper that runs them (`agent-mapper.ts`) both stand on this contract.
 *
 * @module
 */
import type { SessionWriter } from './session-writer.js';

/** What the caller knows about an event besides the event itself. */
export interface EventContext {
  /** When the event was recorded (e.g. the server's `createdAt`), Unix ms, for events that carry no time. */
  time?: number;
  /** A stable id of the record the event came from (e.g. the server message id); messages may derive their ids from it. */
  recordId?: string;
}

/**
 * The event handler of one provider, bound to a writer. It must not throw on provider input: what it
 * does not understand it counts on `writer.skips` and ignores.
 */
export interface ProviderMapper {
  /** Translates one provider event into writer calls (awaiting media uploads when there are any). */
  push(event: unknown, context: EventContext): void | Promise<void>;
  /**
   * Translates the `data` of one of Happy's legacy records whose `content.type` is the provider's
   * {@link MapperProvider.legacyContentType} (`{ role: 'agent', content: { type, data } }`).
   */
  pushLegacy?(data: unknown, context: EventContext): void | Promise<void>;
  /** Input ended: flush what is buffered (the writer then closes the open turn). */
  end?(): void | Promise<void>;
}

/** One provider: its name (as `happy-media map --from NAME` takes it) and how to make its handler. */
export interface MapperProvider {
  /** Short lower-case name, e.g. `claude`. */
  readonly name: string;
  /** One line for `--help`: what input it reads. */
  readonly summary: string;
  /** Creates the provider's handler over a writer (shared when several providers write one transcript). */
  create(writer: SessionWriter): ProviderMapper;
  /** `content.type` of Happy's legacy agent records this provider's `pushLegacy` reads (`codex`, `acp`). */
  readonly legacyContentType?: string;
}
