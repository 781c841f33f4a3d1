/**
 * Conformance: every ACP example of the corpus (protocol/acp/examples, extracted from the ACP spec's
 * docs) maps to a valid v2 stream — each example alone, and each page's examples in order as one log —
 * with nothing lost: every prompt and message text, every tool call id (start and end), every
 * permission request and selected answer. The content examples (blocks that are not messages by
 * themselves) are mapped inside a prompt and as tool call content. Skipped unless HAPPY_MEDIA_CORPUS is set.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { detectAgentLog } from '../../src/index.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { summarize } from '../helpers/mapped-stream.js';
import { mapValid, recordingMediaHandler, sequentialIds, steppingClock } from '../helpers/mappers.js';

const DIR = ['protocol', 'acp', 'examples'];

async function examples(): Promise<{ name: string; value: Record<string, unknown> }[]> {
  const names = (await readdir(corpusPath(...DIR))).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => ({
      name,
      value: JSON.parse(await readFile(corpusPath(...DIR, name), 'utf8')) as Record<string, unknown>,
    })),
  );
}

async function map(events: unknown[]) {
  const media = recordingMediaHandler();
  const output = await mapValid('acp', events, {
    media: media.handler,
    clock: steppingClock(),
    createId: sequentialIds(),
  });
  return { ...output, uploads: media.uploads, summary: summarize(output.messages) };
}

/** What the JSON-RPC messages of a log say must survive: texts, call ids, permissions and selections. */
function expected(events: Record<string, unknown>[]) {
  const texts: string[] = [];
  const calls = new Set<string>();
  const permissionCalls: string[] = [];
  const selected: string[] = [];
  for (const event of events) {
    const params = event.params as Record<string, unknown> | undefined;
    if (event.method === 'session/prompt') {
      for (const block of params!.prompt as { type: string; text?: string }[]) {
        if (block.type === 'text') texts.push(block.text!);
      }
    }
    const update = params?.update as Record<string, unknown> | undefined;
    if (update && typeof update.sessionUpdate === 'string' && update.sessionUpdate.endsWith('_chunk')) {
      texts.push((update.content as { text: string }).text);
    }
    if (update?.sessionUpdate === 'tool_call') calls.add(update.toolCallId as string);
    if (event.method === 'session/request_permission') {
      permissionCalls.push((params!.toolCall as { toolCallId: string }).toolCallId);
    }
    const outcome = (event.result as { outcome?: { outcome: string; optionId?: string } } | undefined)
      ?.outcome;
    if (outcome?.outcome === 'selected') selected.push(outcome.optionId!);
  }
  return { texts, calls, permissionCalls, selected };
}

describe.skipIf(!hasCorpus)('ACP spec examples (corpus) through the ACP mapper', () => {
  it('finds the examples of the five pages', async () => {
    const all = await examples();
    expect(all.length).toBeGreaterThanOrEqual(40);
    expect(new Set(all.map((example) => example.name.split('__')[0]))).toEqual(
      new Set(['agent-plan', 'content', 'prompt-turn', 'session-setup', 'tool-calls']),
    );
  });

  it('maps every example alone to a valid stream, never throwing', async () => {
    for (const { name, value } of await examples()) {
      const { messages, skipped } = await map([value]);
      // A lone update, response or block is a valid (possibly empty) stream, or a counted skip.
      expect(messages.length + skipped.total, name).toBeGreaterThan(0);
    }
  });

  for (const page of ['agent-plan', 'prompt-turn', 'session-setup', 'tool-calls']) {
    it(`maps the ${page} page's messages in order as one log, losing nothing`, async () => {
      const events = (await examples())
        .filter((example) => example.name.startsWith(`${page}__`) && 'jsonrpc' in example.value)
        .map((example) => example.value);
      expect(events.length).toBeGreaterThan(0);
      expect(detectAgentLog(events)).toMatchObject({ provider: 'acp' });
      const { summary } = await map(events);
      const want = expected(events);
      const written = [...summary.userTexts, ...summary.agentTexts, ...summary.thinking].join('\n');
      for (const text of want.texts) expect(written).toContain(text);
      for (const call of want.calls) {
        expect(summary.starts.has(call), call).toBe(true);
        expect(summary.ends.has(call), call).toBe(true);
      }
      expect(summary.permissionRequests.map((request) => request.callId)).toEqual(want.permissionCalls);
      expect(summary.permissionResponses.map((response) => response.optionId)).toEqual(want.selected);
    });
  }

  it('maps the plan example as a checklist', async () => {
    const plan = (await examples()).find((example) => example.name.startsWith('agent-plan__'))!;
    const { summary } = await map([plan.value]);
    expect(summary.services).toEqual([
      'Plan:\n- [ ] Analyze the existing codebase structure\n- [ ] Identify components that need refactoring\n- [ ] Create unit tests for critical functions',
    ]);
  });

  it('maps the content examples inside a prompt: text, media (the truncated base64 as a note), resources', async () => {
    const blocks = (await examples())
      .filter((example) => example.name.startsWith('content__'))
      .map((e) => e.value);
    const { summary, uploads, skipped } = await map([
      { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: blocks } },
      { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
    ]);
    expect(summary.userTexts).toEqual(["What's the weather like today?"]);
    // The spec's image and audio data are elided ("...") in the docs: not valid base64, said so.
    expect(skipped.byReason['invalid-media']).toBe(2);
    expect(summary.services).toHaveLength(2);
    // The embedded Python file is uploaded; the PDF link is a file on the machine.
    expect(uploads.map((upload) => [upload.name, upload.mimeType])).toEqual([['script.py', 'text/x-python']]);
    expect(summary.files.map((file) => file.ref)).toEqual([
      'media/upload-1',
      'machine-file:///home/user/document.pdf',
    ]);
  });

  it('maps the tool call content examples (content, diff, terminal) and a location as a call', async () => {
    const all = await examples();
    const content = ['tool-calls__05', 'tool-calls__06', 'tool-calls__07'].map(
      (prefix) => all.find((example) => example.name.startsWith(prefix))!.value,
    );
    const location = all.find((example) => example.name.startsWith('tool-calls__08'))!.value;
    const { summary } = await map([
      { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } },
      {
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 's',
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 'call_c',
            title: 'Editing',
            kind: 'edit',
            status: 'in_progress',
            content,
            locations: [location],
          },
        },
      },
      {
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 's',
          update: { sessionUpdate: 'tool_call_update', toolCallId: 'call_c', status: 'completed' },
        },
      },
      { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
    ]);
    expect(summary.starts.get('call_c')).toMatchObject({
      toolName: 'edit',
      description: '/home/user/project/src/main.py:42',
      args: { path: '/home/user/project/src/config.json', newText: '{\n  "debug": true\n}' },
    });
    expect(summary.ends.get('call_c')).toBeUndefined();
  });
});
