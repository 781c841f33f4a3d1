/**
 * The demo's conversation around the media: a user asks for a capture, the agent's turn runs a tool
 * behind a permission prompt, then attaches the media and ends the turn.
 *
 * @module
 */
import { basename } from 'node:path';
import {
  createMessageId,
  permissionRequest,
  permissionResponse,
  type SessionMessage,
  textMessage,
  toolCallEnd,
  toolCallStart,
  turnEnd,
  turnStart,
} from '../../index.js';
import type { DemoItem, DemoTurn } from './demo-state.js';

/** A fresh turn id and tool-call id for the agent's turn. */
export function createDemoTurn(): DemoTurn {
  return { turn: createMessageId(), callId: createMessageId() };
}

/** The messages before the media: the request, the turn's start and the permitted tool call. */
export function conversationHead({ turn, callId }: DemoTurn): SessionMessage[] {
  return [
    textMessage({
      role: 'user',
      text: 'The app crashes when I rotate the phone. Can you capture it and attach the crash report?',
    }),
    turnStart({ turn }),
    toolCallStart({
      turn,
      callId,
      toolName: 'capture',
      title: 'Capture screen and crash report',
      description: 'Record the screen, take a screenshot and export the crash report',
      args: { screen: true, report: true },
    }),
    permissionRequest({
      turn,
      callId,
      toolName: 'capture',
      title: 'Allow screen capture?',
      options: [
        { id: 'allow', label: 'Allow once', kind: 'allow-once' },
        { id: 'deny', label: 'Deny', kind: 'reject-once' },
      ],
    }),
    permissionResponse({ callId, optionId: 'allow' }),
    toolCallEnd({ turn, callId }),
  ];
}

/** The messages after the media: the agent says what it attached and ends the turn. */
export function conversationTail({ turn }: DemoTurn, items: DemoItem[]): SessionMessage[] {
  return [
    textMessage({
      role: 'agent',
      turn,
      text: `Attached: ${items.map((i) => basename(i.path)).join(', ')}.`,
    }),
    turnEnd({ turn, status: 'completed' }),
  ];
}
