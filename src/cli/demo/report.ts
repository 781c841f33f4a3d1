/**
 * The demo's record of what it did: steps, the lines each printed and the checks each made. Printed
 * live as a numbered list, or returned whole for `--json`.
 *
 * @module
 */

/** One check: a property that must hold for the demo to pass. */
export interface DemoCheck {
  /** What was checked, e.g. `photo.jpg played back from the HTTP server is byte-equal (SHA-256)`. */
  name: string;
  /** Whether it held. */
  ok: boolean;
}

/** One step of the demo. */
export interface DemoStep {
  /** Title, e.g. `Probe`. */
  title: string;
  /** `ok` when it ran and its checks held, `failed` when it threw or a check failed, `skipped` with a reason. */
  status: 'ok' | 'failed' | 'skipped';
  /** What it did, one line each. */
  lines: string[];
  /** Checks made. */
  checks: DemoCheck[];
  /** Why it failed or was skipped. */
  reason?: string;
}

/** The whole demo's outcome. */
export interface DemoReport {
  /** True only when every check held and no step failed. */
  ok: boolean;
  /** Working directory of the run. */
  dir: string;
  /** Whether `dir` was kept (`--keep`) or removed. */
  kept: boolean;
  /** Notable files (paths inside `dir`). */
  files: Record<string, string>;
  /** Steps in order. */
  steps: DemoStep[];
  /** Check counts. */
  totals: { passed: number; failed: number; skipped: number };
  /**
   * With `--keep`: commands that replay what the run left (validate the stream, open a sealed message,
   * play each media blob) with the kept key files; empty otherwise.
   */
  next: string[];
}

/** What a step body can do. */
export interface StepHandle {
  /** Reports a line of what happened. */
  info(line: string): void;
  /** Records a check; returns `ok` so callers can branch on it. */
  check(name: string, ok: boolean): boolean;
  /** Marks part of the step as skipped (e.g. the video without ffmpeg), with a reason. */
  skip(reason: string): void;
}

/** Collects steps and prints them as they happen (unless `print` is undefined). */
export class DemoRecorder {
  readonly steps: DemoStep[] = [];
  private skipped = 0;

  constructor(private readonly print?: (line: string) => void) {}

  /**
   * Runs one step. An exception marks it failed (the message is recorded; the run continues only if the
   * caller decides so) and is returned as `undefined`.
   */
  async step<T>(title: string, body: (step: StepHandle) => Promise<T>): Promise<T | undefined> {
    const step: DemoStep = { title, status: 'ok', lines: [], checks: [] };
    this.steps.push(step);
    this.print?.(`\n${this.steps.length}. ${title}`);
    const handle: StepHandle = {
      info: (line) => {
        step.lines.push(line);
        this.print?.(`   ${line}`);
      },
      check: (name, ok) => {
        step.checks.push({ name, ok });
        if (!ok) step.status = 'failed';
        this.print?.(`   ${ok ? '✓' : '✗ FAILED:'} ${name}`);
        return ok;
      },
      skip: (reason) => {
        this.skipped++;
        step.lines.push(`skipped: ${reason}`);
        this.print?.(`   – skipped: ${reason}`);
      },
    };
    try {
      return await body(handle);
    } catch (error) {
      step.status = 'failed';
      step.reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      this.print?.(`   ✗ FAILED: ${typeof code === 'string' ? `${code}: ` : ''}${step.reason}`);
      return undefined;
    }
  }

  /** True when no step failed. */
  get ok(): boolean {
    return this.steps.every((s) => s.status !== 'failed');
  }

  /** Counts of passed and failed checks, and of skipped parts. */
  totals(): DemoReport['totals'] {
    const all = this.steps.flatMap((s) => s.checks);
    return {
      passed: all.filter((c) => c.ok).length,
      failed:
        all.filter((c) => !c.ok).length +
        this.steps.filter((s) => s.status === 'failed' && s.checks.every((c) => c.ok)).length,
      skipped: this.skipped,
    };
  }
}
