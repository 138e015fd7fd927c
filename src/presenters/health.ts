/**
 * The state of every part of the service (`up`, or why not), under an overall status word; when
 * not everything is up, also the error envelope naming what is down, for clients that read only that.
 */
export function presentHealth(
  status: 'ok' | 'ready' | 'unavailable',
  components: Record<string, string>,
  errorEnvelope?: { error: unknown },
) {
  return { status, components, ...errorEnvelope };
}
