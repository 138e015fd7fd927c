import { Counter, Gauge, Histogram, collectDefaultMetrics, register } from 'prom-client';

/**
 * The service's Prometheus metrics, in prom-client's default registry: each process (the API, each
 * worker) exposes what happened in it on its /metrics (README "Metrics and logs").
 */
collectDefaultMetrics();

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LONG_SECONDS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export const httpRequests = new Counter({
  name: 'audit_service_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
});

export const httpRequestDuration = new Histogram({
  name: 'audit_service_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: SECONDS,
});

export const auditsFinished = new Counter({
  name: 'audit_service_audits_total',
  help: 'Audits that reached a final state, by outcome (completed or failed) and mode',
  labelNames: ['outcome', 'mode'] as const,
});

export const auditAttemptDuration = new Histogram({
  name: 'audit_service_audit_attempt_duration_seconds',
  help: 'Duration of one audit attempt (crawl and analysis), by outcome: completed, site_failure or error',
  labelNames: ['outcome'] as const,
  buckets: LONG_SECONDS,
});

export const pagesCrawled = new Counter({
  name: 'audit_service_pages_crawled_total',
  help: 'Pages fetched by completed live audits',
});

export const deliveryAttempts = new Counter({
  name: 'audit_service_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered, failed or dropped (the webhook is gone)',
  labelNames: ['outcome'] as const,
});

export const deliveryDuration = new Histogram({
  name: 'audit_service_webhook_delivery_duration_seconds',
  help: 'Duration of one webhook delivery attempt, by outcome',
  labelNames: ['outcome'] as const,
  buckets: SECONDS,
});

export const reportRenders = new Counter({
  name: 'audit_service_report_renders_total',
  help: 'PDF report render requests, by outcome: rendered, current (the stored one was kept) or failed',
  labelNames: ['outcome'] as const,
});

export const reportRenderDuration = new Histogram({
  name: 'audit_service_report_render_duration_seconds',
  help: 'Duration of PDF report renders that produced a new file',
  buckets: LONG_SECONDS,
});

export const browserPageDuration = new Histogram({
  name: 'audit_service_browser_page_duration_seconds',
  help: 'Time the browser stage spent on one sampled page, by status: measured or unrenderable',
  labelNames: ['status'] as const,
  buckets: LONG_SECONDS,
});

/** Audits waiting or being worked on, by status; counted from Postgres when scraped. */
type BacklogSource = () => Promise<Record<'queued' | 'running', number>>;
let backlogSource: BacklogSource | null = null;

new Gauge({
  name: 'audit_service_audits_backlog',
  help: 'Audits queued or running right now (from the database), by status',
  labelNames: ['status'] as const,
  async collect() {
    this.reset();
    if (!backlogSource) return;
    const counts = await backlogSource().catch(() => null);
    if (!counts) return;
    for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
  },
});

/** Makes the backlog gauge count from this source (the API's database); returns how to stop. */
export function trackAuditBacklog(source: BacklogSource): () => void {
  backlogSource = source;
  return () => {
    if (backlogSource === source) backlogSource = null;
  };
}

export const metricsContentType = register.contentType;

/** This process's metrics in the Prometheus text format. */
export function renderMetrics(): Promise<string> {
  return register.metrics();
}
