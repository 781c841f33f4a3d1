/**
 * One place where a zod schema's failure becomes our {@link SchemaError}.
 *
 * @module
 */
import type * as z from 'zod';
import { SchemaError } from '../errors.js';
import { formatIssues, toSchemaIssues } from './parse.js';

/**
 * Parses `value` with `schema` or throws a {@link SchemaError} naming `what` and every issue's path.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when `value` does not match.
 */
export function assertWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toSchemaIssues(result.error.issues);
  throw new SchemaError(`invalid ${what}: ${formatIssues(issues)}`, issues);
}
