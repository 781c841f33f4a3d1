/**
 * `happy-media map` on hostile and long inputs: an event nested 200,000 levels deep is a note and a
 * counted skip while the run goes on; one JSON array on stdin is mapped element by element as it comes.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SessionMessage } from '../../../src/node/index.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as SessionMessage);

describe('map on hostile and long inputs', () => {
  it('maps around a Codex event nested 200,000 levels deep: exit 0, a note, the later events', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const input = [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"turn.started"}',
      `{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":${deep}},"status":"completed"}}`,
      '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"still here"}}',
      '{"type":"turn.completed"}',
    ].join('\n');
    const r = await runCli(['map', '--from', 'codex', '-'], { input });
    expect(r.code, r.stderr).toBe(0);
    const messages = lines(r.stdout);
    expect(messages.find((m) => m.type === 'tool-call-start')).toMatchObject({ args: {} });
    expect(messages.some((m) => m.type === 'service' && /levels deep/.test(m.text))).toBe(true);
    expect(messages.some((m) => m.type === 'text' && m.text === 'still here')).toBe(true);
    expect(r.stderr).toMatch(/malformed-event 1/);
  });

  it('maps one JSON array on stdin element by element, before the array has ended', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'map', '--from', 'claude', '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.write(
      `[\n  ${JSON.stringify({ type: 'user', message: { role: 'user', content: 'first' } })},\n`,
    );
    for (let i = 0; i < 200 && stdout === ''; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines(stdout)).toMatchObject([{ type: 'text', role: 'user', text: 'first' }]);
    child.stdin.end(
      `  ${JSON.stringify({ type: 'user', message: { role: 'user', content: 'second' } })}\n]\n`,
    );
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(lines(stdout).map((m) => (m.type === 'text' ? m.text : m.type))).toEqual(['first', 'second']);
    expect(stderr).toMatch(/2 events → 2 messages/);
  });
});
