import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from '../errors';

// verbose: errors carry their schema, so a pattern error can quote the field's description.
const bodies = new Ajv({ allErrors: false, strict: true, strictRequired: false, verbose: true });
addFormats(bodies);
// Query strings arrive as text: coerce "20" to 20, and fill defaults.
const queries = new Ajv({ allErrors: false, coerceTypes: true, useDefaults: true, strict: true, verbose: true });
addFormats(queries);

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A UTF-16 half without its other half cannot be stored or signed as the client sent it.
const LONE_SURROGATE = /\p{Cs}/u;
const DIGITS = /^[0-9]+$/;
// Postgres has no year 0, and years past 9999 are not RFC 3339.
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

type Where = 'body' | 'query';
interface QuerySchema {
  properties: Record<string, { type?: string; format?: string }>;
}

export function bodyValidator<T>(schema: object): (value: unknown) => T {
  const assert = toAssert<T>(bodies.compile(schema), 'body');
  return (value) => {
    rejectUnstorableStrings(value, '', 'body');
    return assert(value);
  };
}

/**
 * Query parameters: plain text first (no control characters; integers as digits only, since
 * coercion would take "Infinity", "1e2" or "0x10"), then the schema, then timestamps Postgres can hold.
 */
export function queryValidator<T>(schema: QuerySchema): (value: unknown) => T {
  const assert = toAssert<T>(queries.compile(schema), 'query');
  const integers = Object.keys(schema.properties).filter((name) => schema.properties[name].type === 'integer');
  const timestamps = Object.keys(schema.properties).filter((name) => schema.properties[name].format === 'date-time');
  return (value) => {
    rejectUnstorableStrings(value, '', 'query');
    const params = value as Record<string, unknown>;
    for (const name of integers) {
      if (typeof params[name] === 'string' && !DIGITS.test(params[name])) {
        throw new ApiError('invalid_request', `query parameter ${name} must be a whole number written in digits`);
      }
    }
    const valid = assert(value) as Record<string, unknown>;
    for (const name of timestamps) {
      if (typeof valid[name] !== 'string') continue;
      const time = Date.parse(valid[name]);
      if (!(time >= EARLIEST && time <= LATEST)) {
        throw new ApiError(
          'invalid_request',
          `query parameter ${name} must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z`,
        );
      }
      // In UTC: Postgres refuses some offsets RFC 3339 allows (e.g. +23:59).
      valid[name] = new Date(time).toISOString();
    }
    return valid as T;
  };
}

/**
 * Strings that Postgres refuses (NUL) or stores altered, and control characters, named by field.
 * Walks with its own stack: a 64 KiB body can nest arrays thousands deep.
 */
function rejectUnstorableStrings(value: unknown, path: string, where: Where): void {
  const noun = where === 'query' ? 'query parameter' : 'field';
  const pending: Array<[unknown, string]> = [[value, path]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (CONTROL.test(item))
        throw new ApiError('invalid_request', `${noun} ${at || where} must not contain control characters`);
      if (LONE_SURROGATE.test(item))
        throw new ApiError('invalid_request', `${noun} ${at || where} must be valid Unicode text`);
    } else if (Array.isArray(item)) {
      // A repeated query parameter keeps its name; body arrays name the item.
      item.forEach((element, index) => pending.push([element, where === 'query' ? at : join(at, String(index))]));
    } else if (item && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) pending.push([element, join(at, key)]);
    }
  }
}

function toAssert<T>(validate: ValidateFunction, where: Where): (value: unknown) => T {
  return (value) => {
    if (validate(value)) return value as T;
    throw new ApiError('invalid_request', describe(validate.errors?.[0], where));
  };
}

/** One sentence naming the offending field, e.g. "domain is required" or "limit must be <= 200". */
export function describe(error: ErrorObject | undefined, where: Where): string {
  if (!error) return `invalid ${where}`;
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const noun = where === 'query' ? 'query parameter' : 'field';
  switch (error.keyword) {
    case 'required':
      return `${noun} ${join(field, error.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `${noun} ${join(field, error.params.additionalProperty)} is not allowed`;
    case 'type':
      return field
        ? `${noun} ${field} must be of type ${error.params.type}`
        : `${where} must be a JSON ${error.params.type}`;
    case 'enum':
      return `${noun} ${field} must be one of: ${(error.params.allowedValues as string[]).join(', ')}`;
    case 'format':
      return `${noun} ${field} must be a valid ${error.params.format === 'date-time' ? 'RFC 3339 timestamp (e.g. 2026-11-01T00:00:00.000Z)' : error.params.format}`;
    case 'pattern': {
      // The schema's description says in words what the pattern wants.
      const hint = (error.parentSchema as { description?: string } | undefined)?.description;
      return `${noun} ${field} must match pattern ${error.params.pattern}${hint ? ` (${hint})` : ''}`;
    }
    default:
      return `${noun} ${field || where} ${error.message ?? 'is invalid'}`;
  }
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
