/**
 * Happy's limit on new attachments: its server answers `429` to more than 60 `request-upload`s per
 * account in a 60-second window (`checkUploadRate`, counted per server process; a fixed window opened by
 * the first request). Media in parts asks for one attachment per part, so a 1 GiB video needs about 104:
 * a send waits for the window instead of failing, and says how long.
 *
 * Two halves: the requests this process makes are paced by a sliding window of 60 per 61 s per server
 * and account (a sliding window never allows more than the server's fixed one would), and a `429` the
 * server answers anyway (another client of the same account, clocks apart) is waited out with a growing
 * pause, up to a bound after which the send fails, saying why.
 *
 * @module
 */
import { StorageError } from '../errors.js';
import { abortableSleep } from '../transport/retry.js';

/** Request-uploads Happy's server takes per account per window. */
export const HAPPY_UPLOADS_PER_WINDOW = 60;
/** Happy's window, plus a second of slack for the requests' travel time and the clocks. */
const WINDOW_MS = 61_000;
/** Pauses after a `429`, one after the other, the last repeated. */
const REFUSED_PAUSES_MS = [5_000, 15_000, 30_000, 61_000];
/** A send fails after this long of `429`s in a row: the server does not take uploads from this account. */
const REFUSED_GIVE_UP_MS = 10 * 60_000;

/** How a wait is told: its length, and why. */
export type WaitNotice = (wait: { ms: number; reason: string }) => void;

/** How request-uploads are paced: Happy's numbers by default; tests shorten them. */
export interface UploadRate {
  /** Requests per window (default 60). */
  perWindow?: number;
  /** The window, in ms (default 61 000: Happy's minute and a second of slack). */
  windowMs?: number;
  /** Pauses after each `429` in a row, the last repeated (default 5, 15, 30, 61 s). */
  refusedPausesMs?: readonly number[];
  /** How long `429`s in a row are waited out before the send fails (default 10 minutes). */
  giveUpMs?: number;
}

/** The request-uploads of one account on one server, as this process made them. */
export class UploadRateWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #pausesMs: readonly number[];
  readonly #giveUpMs: number;
  /** Start times of the requests in the current window, oldest first. */
  readonly #sent: number[] = [];

  constructor(rate: UploadRate = {}) {
    this.#limit = rate.perWindow ?? HAPPY_UPLOADS_PER_WINDOW;
    this.#windowMs = rate.windowMs ?? WINDOW_MS;
    this.#pausesMs = rate.refusedPausesMs ?? REFUSED_PAUSES_MS;
    this.#giveUpMs = rate.giveUpMs ?? REFUSED_GIVE_UP_MS;
  }

  /** Waits (telling `onWait`) until one more request fits the window, and counts it. */
  async take(signal: AbortSignal | undefined, onWait: WaitNotice | undefined): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.#sent.length > 0 && (this.#sent[0] as number) <= now - this.#windowMs) this.#sent.shift();
      if (this.#sent.length < this.#limit) {
        this.#sent.push(now);
        return;
      }
      const ms = (this.#sent[0] as number) + this.#windowMs - now;
      onWait?.({
        ms,
        reason: `Happy's server takes at most ${this.#limit} new attachments a minute per account`,
      });
      await abortableSleep(ms, signal);
    }
  }

  /**
   * Runs `request` (a request-upload) within the window; while the server refuses it with `429` (told by
   * `refused`), waits a growing pause and asks again.
   *
   * @throws {StorageError} `ERR_UPLOAD_FAILED` after `giveUpMs` (10 minutes) of refusals in a row.
   * @throws what `request` throws otherwise; {AbortedError} when `signal` aborts a wait.
   */
  async run<T>(
    request: () => Promise<T>,
    refused: (error: unknown) => boolean,
    signal: AbortSignal | undefined,
    onWait: WaitNotice | undefined,
  ): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      await this.take(signal, onWait);
      try {
        return await request();
      } catch (error) {
        if (!refused(error)) throw error;
        if (Date.now() - started >= this.#giveUpMs) {
          throw new StorageError(
            `request-upload failed: Happy's server refused new attachments (429) for ${Math.round(this.#giveUpMs / 1000)} s in a row; another client of this account may be uploading. Send again later (a resumable send goes on where it stopped)`,
            { code: 'ERR_UPLOAD_FAILED', cause: error },
          );
        }
        const ms = this.#pausesMs[Math.min(attempt, this.#pausesMs.length - 1)] as number;
        onWait?.({ ms, reason: "Happy's server refused a new attachment for now (429: too many a minute)" });
        await abortableSleep(ms, signal);
      }
    }
  }
}

/** One window per server and account in this process (every store of the account shares it). */
const windows = new Map<string, UploadRateWindow>();

/**
 * The window of the account whose token is `token` on the server at `origin`, shared by every store of it
 * in this process; a `rate` of its own (tests) gets a window of its own.
 */
export function uploadRateWindow(origin: string, token: string, rate?: UploadRate): UploadRateWindow {
  if (rate) return new UploadRateWindow(rate);
  const key = `${origin}\n${token}`;
  let window = windows.get(key);
  if (!window) {
    window = new UploadRateWindow();
    windows.set(key, window);
  }
  return window;
}
