import { renderCsv } from './csv';
import type { GateOptions, GateResult } from './gate';
import { renderJunit } from './junit';
import { renderSarif } from './sarif';
import { renderQueued, renderText } from './text';
import type { Audit, Format, TriggerResponse } from './types';

/** The report of a completed audit in the asked format (json: the audit JSON as the API served it). */
export function renderAudit(
  format: Format,
  audit: Audit,
  context: { options: GateOptions; gate: GateResult; docsUrl: string },
): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(audit, null, 2)}\n`;
    case 'sarif':
      return renderSarif(audit, context.gate, context.docsUrl);
    case 'junit':
      return renderJunit(audit, context.options, context.gate);
    case 'csv':
      return renderCsv(audit);
    case 'text':
      return renderText(audit, context.options, context.gate);
  }
}

/** Without --wait (json or text only: the other formats wait): what the trigger answered. */
export function renderTrigger(format: Format, trigger: TriggerResponse): string {
  return format === 'json' ? `${JSON.stringify(trigger, null, 2)}\n` : renderQueued(trigger);
}
