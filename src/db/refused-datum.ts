// SQLSTATE classes whose errors come from the statement or its data, not from the database's state:
// running the same statement again gets the same answer. 22 data exception (a NUL in text, an
// unsupported escape in jsonb, a value out of range), 23 integrity constraint violation, 42 syntax
// error or access rule violation, 54 program limit exceeded (an index row too large).
const REFUSING_CLASSES = new Set(['22', '23', '42', '54']);

/** Whether Postgres refused this statement for what it holds or says: retrying it unchanged cannot help. */
export function isRefusedDatum(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && REFUSING_CLASSES.has(code.slice(0, 2));
}
