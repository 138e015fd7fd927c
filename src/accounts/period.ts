/** Quota periods are calendar months in UTC: [1st 00:00, next 1st 00:00). */
export interface Period {
  start: Date;
  end: Date;
}

export function periodAt(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
