/**
 * Agent plans as v2 writes them: Session Protocol v2 has no plan message, so a plan is a `service`
 * message holding a markdown checklist, written when it changes. Codex (`plan_update`, `update_plan`,
 * to-do lists) and ACP (`plan` updates) both write through here, so a plan reads the same from either.
 *
 * @module
 */
import type { Placement, SessionWriter } from './session-writer.js';

/** Where a plan step stands. */
export type PlanStepStatus = 'done' | 'doing' | 'todo';

/** One step of a plan. */
export interface PlanStep {
  text: string;
  status: PlanStepStatus;
}

/**
 * A plan as the text of a `service` message: a markdown checklist (`- [x] done`, `- [ ] next (in
 * progress)`), after an optional explanation.
 *
 * @example
 * ```ts
 * planText([{ text: 'Run the tests', status: 'doing' }]); // 'Plan:\n- [ ] Run the tests (in progress)'
 * ```
 */
export function planText(steps: readonly PlanStep[], explanation?: string | null): string {
  const lines = ['Plan:'];
  if (explanation) lines.push(explanation);
  for (const step of steps) {
    lines.push(
      `- [${step.status === 'done' ? 'x' : ' '}] ${step.text}${step.status === 'doing' ? ' (in progress)' : ''}`,
    );
  }
  return lines.join('\n');
}

/** The status both Codex and ACP give a step (`completed`, `in_progress`, anything else pending). */
export function planStepStatus(status: string): PlanStepStatus {
  return status === 'completed' ? 'done' : status === 'in_progress' ? 'doing' : 'todo';
}

/**
 * Writes a provider's plans as `service` checklists, skipping a plan equal to the last one written
 * (providers resend the whole plan with every change, and some resend it unchanged).
 */
export class PlanNotes {
  #last: string | undefined;

  /** Writes `steps` (and `explanation`) unless they read the same as the last plan; counts a `duplicate` then. */
  write(
    writer: SessionWriter,
    steps: readonly PlanStep[],
    explanation: string | null | undefined,
    place: Placement,
  ): void {
    const text = planText(steps, explanation);
    if (text === this.#last) {
      writer.skips.skip('duplicate', 'an unchanged plan');
      return;
    }
    this.#last = text;
    writer.service(text, place);
  }
}
