/**
 * The ACP mapper reads the JSON-RPC envelope, the `session/update` params, message chunks, tool call
 * updates, plans, prompts and permission requests by hand: on any JSON it says yes exactly when the schemas that state ACP's shapes do, and reads
 * the same fields.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AcpPermissionOptionSchema,
  ContentChunkSchema,
  JsonRpcMessageSchema,
  PlanUpdateSchema,
  PromptRequestSchema,
  RequestPermissionSchema,
  readContentChunk,
  readJsonRpcMessage,
  readPermissionOption,
  readPlanUpdate,
  readPromptRequest,
  readRequestPermission,
  readSessionUpdate,
  readToolCallFields,
  SessionNotificationSchema,
  ToolCallFieldsSchema,
} from '../../../src/core/mappers/acp/acp-events.js';
import { assertReadsLikeSchema, objectOf } from '../../helpers/json-arbitraries.js';

/** Values that sit on either side of each field's type. */
const field = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant([]),
  fc.jsonValue({ maxDepth: 2 }),
);
const rpcError = fc.oneof(field, fc.record({ code: field, message: field }, { requiredKeys: [] }));

describe('the ACP envelope read by hand', () => {
  it('a JSON-RPC message: accepted when the schema accepts it, with the same fields', () => {
    const message = fc
      .tuple(objectOf(['jsonrpc', 'id', 'method', 'params', 'result'], field), rpcError)
      .map(([object, error]) => (error === undefined ? object : { ...object, error }));
    fc.assert(
      fc.property(message, (event) => {
        const parsed = JsonRpcMessageSchema.safeParse(event);
        const read = readJsonRpcMessage(event);
        expect(read !== undefined).toBe(parsed.success);
        if (read === undefined || !parsed.success) return;
        for (const key of ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const)
          expect(read[key], key).toEqual(parsed.data[key]);
      }),
      { numRuns: 3000 },
    );
  });

  it('session/update params: the update when the schema accepts them', () => {
    const update = fc.oneof(field, objectOf(['sessionUpdate', 'content'], field));
    const params = fc.oneof(
      field,
      fc.tuple(objectOf(['sessionId'], field), update).map(([object, u]) => ({ ...object, update: u })),
    );
    fc.assert(
      fc.property(params, (value) => {
        const parsed = SessionNotificationSchema.safeParse(value);
        const read = readSessionUpdate(value);
        expect(read !== undefined).toBe(parsed.success);
        if (read !== undefined && parsed.success) expect(read).toEqual(parsed.data.update);
      }),
      { numRuns: 3000 },
    );
  });

  // A content block's fields, each absent, of its type, or of another.
  const block = fc.oneof(
    field,
    fc
      .tuple(
        objectOf(['type', 'text', 'data', 'mimeType', 'uri', 'name', 'title', 'size'], field),
        fc.oneof(field, objectOf(['uri', 'mimeType', 'text', 'blob'], field)),
      )
      .map(([object, resource]) => (resource === undefined ? object : { ...object, resource })),
    fc.record({ type: fc.constantFrom('text', 'image', 'resource'), text: fc.string(), data: fc.string() }),
  );

  it('a message chunk: accepted when the schema accepts it, with the same fields', () => {
    const chunk = fc
      .tuple(objectOf(['sessionUpdate', 'messageId'], field), fc.option(block, { nil: undefined }))
      .map(([object, content]) => (content === undefined ? object : { ...object, content }));
    assertReadsLikeSchema(fc.oneof(field, chunk), ContentChunkSchema, readContentChunk, 3000);
  });

  it('a tool call or its update: accepted when the schema accepts it, with the same fields', () => {
    const content = fc.oneof(
      field,
      fc
        .tuple(
          objectOf(['type', 'path', 'oldText', 'newText', 'terminalId'], field),
          fc.option(block, { nil: undefined }),
        )
        .map(([object, inner]) => (inner === undefined ? object : { ...object, content: inner })),
    );
    const location = fc.oneof(field, objectOf(['path', 'line'], field));
    const update = fc
      .tuple(
        objectOf(['toolCallId', 'title', 'kind', 'status', 'rawInput', 'rawOutput'], field),
        fc.oneof(field, fc.array(content, { maxLength: 4 })),
        fc.oneof(field, fc.array(location, { maxLength: 4 })),
      )
      .map(([object, items, locations]) => ({
        ...object,
        ...(items === undefined ? {} : { content: items }),
        ...(locations === undefined ? {} : { locations }),
      }));
    assertReadsLikeSchema(fc.oneof(field, update), ToolCallFieldsSchema, readToolCallFields, 3000);
  });

  it('a plan: accepted when the schema accepts it, with the same entries', () => {
    const entry = fc.oneof(
      field,
      objectOf(['content', 'priority', 'status'], field),
      fc.record(
        {
          content: fc.string(),
          priority: fc.oneof(field, fc.constantFrom('high', 'medium', 'low')),
          status: fc.constantFrom('pending', 'in_progress', 'completed'),
        },
        { requiredKeys: ['content', 'status'] },
      ),
    );
    const plan = fc
      .tuple(
        objectOf(['sessionUpdate'], fc.oneof(field, fc.constant('plan'))),
        fc.oneof(field, fc.array(entry, { maxLength: 5 })),
      )
      .map(([object, entries]) => (entries === undefined ? object : { ...object, entries }));
    assertReadsLikeSchema(fc.oneof(field, plan), PlanUpdateSchema, readPlanUpdate, 3000);
  });

  const option = fc.oneof(field, objectOf(['optionId', 'name', 'kind'], field));

  it('a permission option: accepted when the schema accepts it, with the same fields', () => {
    assertReadsLikeSchema(option, AcpPermissionOptionSchema, readPermissionOption, 3000);
  });

  it('session/prompt params: accepted when the schema accepts them, with the same blocks', () => {
    const params = fc.oneof(
      field,
      fc
        .tuple(objectOf(['sessionId'], field), fc.oneof(field, fc.array(block, { maxLength: 4 })))
        .map(([object, prompt]) => (prompt === undefined ? object : { ...object, prompt })),
    );
    assertReadsLikeSchema(params, PromptRequestSchema, readPromptRequest, 3000);
  });

  it('session/request_permission params: accepted when the schema accepts them, with the same fields', () => {
    const toolCall = fc.oneof(field, objectOf(['toolCallId', 'title', 'kind', 'status', 'rawInput'], field));
    const params = fc.oneof(
      field,
      fc
        .tuple(
          objectOf(['sessionId'], field),
          toolCall,
          fc.oneof(
            field,
            fc.array(option, { maxLength: 4 }),
            fc.array(fc.record({ optionId: fc.string(), name: fc.string(), kind: fc.string() }), {
              maxLength: 4,
            }),
          ),
        )
        .map(([object, call, options]) => ({
          ...object,
          ...(call === undefined ? {} : { toolCall: call }),
          ...(options === undefined ? {} : { options }),
        })),
    );
    assertReadsLikeSchema(params, RequestPermissionSchema, readRequestPermission, 3000);
  });
});
