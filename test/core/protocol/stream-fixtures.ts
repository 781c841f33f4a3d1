/**
 * Compact writers of raw message objects for hand-written streams: each call gets the next id
 * (`m0`, `m1`, ...) and the next time (1 ms apart) unless given.
 */
export class StreamWriter {
  readonly messages: Record<string, unknown>[] = [];
  private time = 1_767_225_600_000;

  private add(fields: Record<string, unknown>): this {
    const { id, time, ...rest } = fields;
    this.messages.push({
      id: id ?? `m${this.messages.length}`,
      time: time ?? this.time++,
      ...rest,
    });
    return this;
  }

  user(text: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'user', type: 'text', text, ...extra });
  }
  turnStart(turn: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'agent', type: 'turn-start', turn, ...extra });
  }
  turnEnd(turn: string, status = 'completed', extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'agent', type: 'turn-end', turn, status, ...extra });
  }
  text(turn: string, text: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'agent', type: 'text', turn, text, ...extra });
  }
  callStart(turn: string, callId: string, extra: Record<string, unknown> = {}): this {
    return this.add({
      role: 'agent',
      type: 'tool-call-start',
      turn,
      callId,
      toolName: 'bash',
      title: `Run ${callId}`,
      description: 'runs a command',
      args: { command: callId },
      ...extra,
    });
  }
  callEnd(turn: string, callId: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'agent', type: 'tool-call-end', turn, callId, ...extra });
  }
  request(
    turn: string,
    callId: string,
    optionIds = ['yes', 'no'],
    extra: Record<string, unknown> = {},
  ): this {
    return this.add({
      role: 'agent',
      type: 'permission-request',
      turn,
      callId,
      toolName: 'bash',
      title: `Run ${callId}`,
      options: optionIds.map((id, i) => ({
        id,
        label: id,
        kind: i === 0 ? 'allow-once' : i === 1 ? 'reject-once' : i === 2 ? 'allow-always' : 'reject-always',
      })),
      ...extra,
    });
  }
  response(callId: string, optionId: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'user', type: 'permission-response', callId, optionId, ...extra });
  }
  photo(turn: string | undefined, extra: Record<string, unknown> = {}): this {
    return this.add({
      role: turn === undefined ? 'user' : 'agent',
      type: 'photo',
      ...(turn === undefined ? {} : { turn }),
      ref: 'media/p1',
      thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
      width: 4,
      height: 3,
      ...extra,
    });
  }
  service(text: string, extra: Record<string, unknown> = {}): this {
    return this.add({ role: 'agent', type: 'service', text, ...extra });
  }
  raw(value: Record<string, unknown>): this {
    this.messages.push(value);
    return this;
  }
}
