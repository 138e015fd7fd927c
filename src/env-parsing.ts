/** Parsers of environment settings shared by src/config.ts and the setting groups it calls. */

export function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function delays(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((part) => integer(name, part.trim(), 0));
}
