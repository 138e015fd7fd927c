import {
  DnsResolutionError,
  OutboundConnectError,
  OutboundError,
  OutboundTimeoutError,
  OutboundTlsError,
  classifyOutboundError,
} from './errors';

/** The part of an exchange under way when it failed: what a time-out error names. */
export type Phase = 'dns' | 'headers' | 'body';

/** One timer for the whole exchange; abort() tears down whatever is in progress. */
export class Deadline {
  readonly controller = new AbortController();
  expired = false;
  private readonly timer: NodeJS.Timeout;
  private readonly expiredPromise: Promise<never>;

  constructor(ms: number) {
    let rejectFn: (e: Error) => void = () => undefined;
    this.expiredPromise = new Promise<never>((_, reject) => (rejectFn = reject));
    this.expiredPromise.catch(() => undefined); // only observed through race()
    this.timer = setTimeout(() => {
      this.expired = true;
      const reason = new Error('outbound deadline');
      rejectFn(reason);
      this.controller.abort(reason);
    }, ms);
  }
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.expiredPromise]);
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

/** Where an exchange stands: the deadline, the phase it is in and whom it talks to. */
export interface ExchangeState {
  deadline: Deadline;
  timeoutMs: number;
  phase: Phase;
  host: string;
  address?: string;
}

/** Whatever a request threw, as the OutboundError callers handle: a passed deadline is a time-out. */
export function wrapError(err: unknown, state: ExchangeState): OutboundError {
  if (err instanceof OutboundError) return err;
  if (state.deadline.expired) return new OutboundTimeoutError(state.timeoutMs, state.phase);
  const code = codeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  const where = state.address ? `${state.host} (${state.address})` : state.host;
  switch (classifyOutboundError(err)) {
    case 'timeout':
      return new OutboundTimeoutError(state.timeoutMs, state.phase);
    case 'tls':
      return new OutboundTlsError(`TLS error with ${where}: ${detail}`, code, err);
    case 'connect':
      return new OutboundConnectError(`connection to ${where} failed: ${detail}`, code, err);
    case 'dns':
      return new DnsResolutionError(state.host, code ?? 'EUNKNOWN', err);
    default:
      return new OutboundError('other', `request to ${where} failed: ${detail}`, { code, cause: err });
  }
}

function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e != null && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
