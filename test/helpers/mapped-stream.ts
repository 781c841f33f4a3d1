/**
 * Reading a mapped stream back for "nothing lost" checks: fixtures as JSONL, and a summary of what a
 * v2 stream holds (texts by kind, call starts and ends, permissions, media, turn statuses).
 */
import { readFileSync } from 'node:fs';
import type { SessionMessage } from '../../src/index.js';

/** The JSON values of a JSONL fixture under `test/fixtures/mappers/`. */
export function readFixture(path: string): unknown[] {
  return readFileSync(new URL(`../fixtures/mappers/${path}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** What a v2 stream holds, by kind, in stream order. */
export interface StreamSummary {
  userTexts: string[];
  agentTexts: string[];
  thinking: string[];
  services: string[];
  /** callId → the start message. */
  starts: Map<string, Extract<SessionMessage, { type: 'tool-call-start' }>>;
  /** callId → the end's `error` (undefined when it succeeded). */
  ends: Map<string, string | undefined>;
  permissionRequests: Extract<SessionMessage, { type: 'permission-request' }>[];
  permissionResponses: Extract<SessionMessage, { type: 'permission-response' }>[];
  photos: Extract<SessionMessage, { type: 'photo' }>[];
  files: Extract<SessionMessage, { type: 'file' }>[];
  turnStatuses: string[];
}

/** Sorts a stream's messages into a {@link StreamSummary}. */
export function summarize(messages: readonly SessionMessage[]): StreamSummary {
  const summary: StreamSummary = {
    userTexts: [],
    agentTexts: [],
    thinking: [],
    services: [],
    starts: new Map(),
    ends: new Map(),
    permissionRequests: [],
    permissionResponses: [],
    photos: [],
    files: [],
    turnStatuses: [],
  };
  for (const message of messages) {
    switch (message.type) {
      case 'text':
        if (message.role === 'user') summary.userTexts.push(message.text);
        else if (message.thinking === true) summary.thinking.push(message.text);
        else summary.agentTexts.push(message.text);
        break;
      case 'service':
        summary.services.push(message.text);
        break;
      case 'tool-call-start':
        summary.starts.set(message.callId, message);
        break;
      case 'tool-call-end':
        summary.ends.set(message.callId, message.error);
        break;
      case 'permission-request':
        summary.permissionRequests.push(message);
        break;
      case 'permission-response':
        summary.permissionResponses.push(message);
        break;
      case 'photo':
        summary.photos.push(message);
        break;
      case 'file':
        summary.files.push(message);
        break;
      case 'turn-end':
        summary.turnStatuses.push(message.status);
        break;
      default:
        break;
    }
  }
  return summary;
}

/** The bytes of base64 text or of a `data:` URI. */
export function base64Bytes(data: string): Uint8Array {
  return new Uint8Array(Buffer.from(data.replace(/^data:[^,]*,/, ''), 'base64'));
}
