/**
 * Identifiers we create: cuid2 (collision-resistant, no coordination, not guessable, 24 lower-case
 * alphanumerics). Messages we read may carry any id the schema accepts (see `IdSchema`).
 *
 * @module
 */
import { createId } from '@paralleldrive/cuid2';

/**
 * Creates a fresh message id (cuid2). Also fits `turn`, `callId` and `agentId` values.
 *
 * @example
 * ```ts
 * createMessageId(); // 'pfh0haxfpzowht3oi213cqos'
 * ```
 */
export function createMessageId(): string {
  return createId();
}
