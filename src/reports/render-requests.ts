import type { Mode } from '../schemas/audit';

export interface ReportSubject {
  auditId: string;
  domain: string;
  workspaceId: string;
  mode: Mode;
}

/** How the API asks for a render; the renders themselves run in the worker, never in the API. */
export interface ReportRenderRequests {
  /**
   * Starts the render of the audit's PDF with this branding revision (or joins the one under way)
   * and waits up to `waitMs` for it: 'done' or 'pending' (still rendering). Rejects when the
   * render failed (after its retries).
   */
  renderAndWait(subject: ReportSubject, brandingRevision: number, waitMs: number): Promise<'done' | 'pending'>;
}
