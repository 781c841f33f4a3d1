/**
 * openStreamingMedia's checks before the Service Worker is asked (src/web/streaming-client.ts): a source
 * URL that does not parse is a typed error, not the runtime's TypeError, and the worker is never asked.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { openStreamingMedia } from '../../src/web/streaming-client.js';
import { rejectionOf } from '../helpers/errors.js';

describe('openStreamingMedia', () => {
  it('a source string that is no URL is ERR_INVALID_ARGUMENT, before the worker is asked', async () => {
    let asked = 0;
    const worker = { postMessage: () => (asked += 1) } as unknown as ServiceWorker;
    for (const source of ['http://[', 'https://exa mple.com/x', 'blob']) {
      const error = await rejectionOf(
        openStreamingMedia(
          { worker, scope: 'https://app.example/' },
          { ref: 'media/tz4a98xxat96iws9zmbrgj3a' },
          { source, blobKey: new Uint8Array(32) },
        ),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.message).toMatch(
        /^expected a URL \(absolute, or relative to the page\) for `source` but it could not be parsed/,
      );
    }
    expect(asked).toBe(0);
  });
});
