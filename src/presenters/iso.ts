/** Timestamps in responses: ISO 8601 in UTC with milliseconds; a missing time stays null. */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  // Rows read through some drivers or caches carry strings; both render the same instant.
  return value === null || value === undefined ? null : new Date(value).toISOString();
}
