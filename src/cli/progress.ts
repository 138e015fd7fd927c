import type { StatusEnvelope } from './types';

/**
 * The progress line while the CLI waits: rewritten in place on stderr, only on a terminal and never
 * in CI (a log would keep every version of it), and erased before the report is written.
 */
export interface ProgressLine {
  update(text: string): void;
  status(auditId: string, envelope: StatusEnvelope): void;
  clear(): void;
}

interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const CLEAR = '\r\x1b[2K';

export function describeStatus(auditId: string, envelope: StatusEnvelope): string {
  const progress = envelope.progress;
  if (!progress) return `audit ${auditId}: ${envelope.status}…`;
  return `audit ${auditId}: ${progress.phase}, ${progress.pages_crawled} of ${progress.pages_discovered} pages crawled…`;
}

export function progressLine(stderr: Terminal, enabled: boolean): ProgressLine {
  if (!enabled || !stderr.isTTY) return { update: () => undefined, status: () => undefined, clear: () => undefined };
  let shown = false;
  return {
    update(text) {
      // A line longer than the terminal wraps, and \r would then rewrite only its last part.
      const width = stderr.columns ? stderr.columns - 1 : Infinity;
      stderr.write(`${CLEAR}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    status(auditId, envelope) {
      this.update(describeStatus(auditId, envelope));
    },
    clear() {
      if (shown) stderr.write(CLEAR);
      shown = false;
    },
  };
}
