/**
 * A photo, video or file into a Happy session in one call: probe → encrypt → upload to the session's
 * attachments → build the message → append it to the session. The message is appended only after the
 * server confirmed the blob (upload-first), and its `seq` comes back.
 *
 * Happy's server takes at most 10 MiB of ciphertext per attachment, and Happy's app fetches attachments
 * only from there (it has no S3 or media-server path): v2 media larger than that is stored in parts and a
 * manifest (docs/blob-format.md, "Media in parts"), still one message; a v1 blob is one attachment by
 * design, so a v1 file over the cap is refused before anything is probed or uploaded, with advice to send
 * it as v2.
 *
 * @module
 */
import { describeValue } from '../../core/bytes.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { HappyClient, HappyFileEvent, HappySession } from '../../core/happy/index.js';
import type { MediaMessage } from '../../core/protocol/index.js';
import type { MediaProbe } from '../media/index.js';
import type { SendOptions, SendStreamInput } from '../send/index.js';
import { sendMediaJournaled } from '../send/send-media.js';

/** Options of {@link sendToSession}. */
export interface SendToSessionOptions
  extends Pick<
    SendOptions,
    | 'role'
    | 'turn'
    | 'signal'
    | 'onProgress'
    | 'onNotice'
    | 'probeOptions'
    | 'messageOptions'
    | 'partBytes'
    | 'keepMetadata'
    | 'resume'
  > {
  /** The signed-in account. */
  client: HappyClient;
  /** The session to send into (from `client.openSession` or `client.createSession`). */
  session: HappySession;
  /**
   * `v2` (default): a Cobblestone-256 blob and a v2 `photo`/`video`/`file` message, which an app without
   * the v2 adoption (integrations/happy) does not show. `v1`: a whole-file secretbox blob and Happy's `file`
   * event, the form Happy's released app opens.
   */
  format?: 'v2' | 'v1';
}

/** What {@link sendToSession} did. */
export interface SendToSessionResult {
  /** The message appended to the session: a v2 message, or Happy's v1 `file` event. */
  message: MediaMessage | HappyFileEvent;
  /** Its sequence number in the session. */
  seq: number;
  /** The blob's ref in the session's store (`media/<uuid>`). */
  ref: string;
  /** Bytes uploaded (of all parts together, for media in parts). */
  ciphertextSize: number;
  /** Attachments the blob is stored in: 1, or its parts (then `ref` is its manifest's). */
  parts: number;
  /** What probing found. */
  probe: MediaProbe;
}

/**
 * Sends a file (or stream) into the session and appends its message.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` before anything is read or uploaded when a v1 file is larger
 *   than one attachment holds (`HAPPY_MAX_PLAINTEXT_BYTES.v1`; sendMedia's one check of the cap).
 * @throws the errors of `sendMedia` (probe, upload) and `HappyClient.appendMessages` (`ERR_NOT_FOUND`,
 *   `ERR_UNAUTHORIZED`, `ERR_UPLOAD_FAILED`); when the append fails, the uploaded blob stays (Happy's
 *   server deletes attachments only with their session).
 * @example
 * ```ts
 * const client = await HappyClient.connect({ url, credentials: await readHappyCredentialsFile(path) });
 * const session = await client.openSession(sessionId);
 * const { message, seq } = await sendToSession('photo.jpg', { client, session, format: 'v1' });
 * ```
 */
export async function sendToSession(
  input: string | SendStreamInput,
  options: SendToSessionOptions,
): Promise<SendToSessionResult> {
  if (options === null || typeof options !== 'object' || !options.client || !options.session) {
    throw new InvalidArgumentError(
      `expected \`{ client, session }\` for \`options\` but received ${describeValue(options)}`,
    );
  }
  const { client, session, format = 'v2', ...rest } = options;
  if (format !== 'v2' && format !== 'v1') {
    throw new InvalidArgumentError(
      `expected 'v2' or 'v1' for \`format\` but received ${describeValue(format)}`,
    );
  }
  const store = client.attachmentStore(session);
  // The journal of a resumable send is forgotten only once its message is in the session: a run killed
  // between the upload and the append posts the same message (its id is the localId the server keeps
  // one record per) when it is run again.
  const { result: sent, finish } = await sendMediaJournaled(input, {
    ...rest,
    store,
    blobKey: session.blobKey,
    format,
  });
  let appended: { seq: number } | undefined;
  try {
    [appended] = await client.appendMessages(
      session,
      [sent.message],
      rest.signal ? { signal: rest.signal } : {},
    );
  } finally {
    await finish(appended !== undefined);
  }
  return {
    message: sent.message,
    seq: (appended as { seq: number }).seq,
    ref: sent.ref,
    ciphertextSize: sent.ciphertextSize,
    parts: sent.parts,
    probe: sent.probe,
  };
}
