import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from './api-error';

const bodies = new Ajv({ allErrors: false, strict: true, strictRequired: false });
addFormats(bodies);
// Query strings arrive as text: coerce "20" to 20, and fill defaults.
const queries = new Ajv({ allErrors: false, coerceTypes: true, useDefaults: true, strict: true });
addFormats(queries);

export function bodyValidator<T>(schema: object): (value: unknown) => T {
  return toAssert<T>(bodies.compile(schema), 'body');
}

export function queryValidator<T>(schema: object): (value: unknown) => T {
  return toAssert<T>(queries.compile(schema), 'query');
}

function toAssert<T>(validate: ValidateFunction, where: 'body' | 'query'): (value: unknown) => T {
  return (value) => {
    if (validate(value)) return value as T;
    throw new ApiError('invalid_request', describe(validate.errors?.[0], where));
  };
}

/** One sentence naming the offending field, e.g. "domain is required" or "limit must be <= 200". */
export function describe(error: ErrorObject | undefined, where: 'body' | 'query'): string {
  if (!error) return `invalid ${where}`;
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const noun = where === 'query' ? 'query parameter' : 'field';
  switch (error.keyword) {
    case 'required':
      return `${noun} ${join(field, error.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `${noun} ${join(field, error.params.additionalProperty)} is not allowed`;
    case 'type':
      return field ? `${noun} ${field} must be of type ${error.params.type}` : `${where} must be a JSON ${error.params.type}`;
    case 'enum':
      return `${noun} ${field} must be one of: ${(error.params.allowedValues as string[]).join(', ')}`;
    case 'format':
      return `${noun} ${field} must be a valid ${error.params.format === 'date-time' ? 'RFC 3339 timestamp (e.g. 2026-11-01T00:00:00.000Z)' : error.params.format}`;
    default:
      return `${noun} ${field || where} ${error.message ?? 'is invalid'}`;
  }
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
