import Ajv from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { auditJsonSchema, type AuditJson } from '../schemas/audit';

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(auditJsonSchema);

/** Every result is checked against the published schema before it is stored. */
export function assertValidAuditJson(value: unknown): asserts value is AuditJson {
  if (!validate(value)) {
    const details = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    throw new Error(`audit JSON does not match its schema: ${details}`);
  }
}
