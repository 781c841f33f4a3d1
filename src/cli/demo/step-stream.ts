/**
 * Demo step 6: write the conversation as a v2 stream (plain and sealed JSONL), validate it and open
 * every envelope again.
 *
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { openMessage, sealMessage } from '../../envelope.js';
import { type SessionMessage, validateStream } from '../../index.js';
import { conversationTail } from './conversation.js';
import type { DemoFiles, DemoItem, DemoKeys, DemoTurn } from './demo-state.js';
import type { DemoRecorder } from './report.js';

/**
 * Writes, seals and validates the stream `head` + the items' media messages + the closing messages;
 * `true` when the step ran, `undefined` when it failed. `head` is made by the caller before the media is
 * sent, so its messages are older than the media's, as in a real conversation.
 */
export async function writeAndValidateStream(
  rec: DemoRecorder,
  head: SessionMessage[],
  items: DemoItem[],
  turn: DemoTurn,
  keys: DemoKeys,
  files: DemoFiles,
): Promise<true | undefined> {
  return rec.step('Write, seal and validate the v2 stream', async (s) => {
    const messages: SessionMessage[] = [
      ...head,
      ...items.map((i) => i.message!),
      ...conversationTail(turn, items),
    ];
    const envelopes = messages.map((m) => sealMessage(m, keys.sealKey));
    await writeFile(files.stream, `${messages.map((m) => JSON.stringify(m)).join('\n')}\n`, { mode: 0o600 });
    await writeFile(files.sealedStream, `${envelopes.map((e) => JSON.stringify(e)).join('\n')}\n`, {
      mode: 0o600,
    });
    s.info(`${messages.length} messages: ${messages.map((m) => m.type).join(', ')}`);
    s.info(`plain  ${files.stream}`);
    s.info(`sealed ${files.sealedStream} (what the relay server stores)`);
    const violations = validateStream(messages);
    for (const v of violations) s.info(`index ${v.index}: ${v.code}: ${v.message}`);
    s.check('validateStream: the stream breaks no rule', violations.length === 0);
    const opened = envelopes.map((e) => openMessage(e, keys.sealKey));
    s.check(
      'every envelope opens to its message (deep-equal)',
      opened.every((m, i) => isDeepStrictEqual(m, messages[i])),
    );
    // A phrase from the user's first message: if it shows in the sealed file, something was not sealed.
    s.check(
      'the sealed stream holds no plaintext of the conversation',
      !(await readFile(files.sealedStream, 'utf8')).includes('rotate the phone'),
    );
    s.check('the opened stream validates too', validateStream(opened).length === 0);
    return true as const;
  });
}
