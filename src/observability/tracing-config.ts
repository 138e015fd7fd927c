/**
 * OpenTelemetry trace export, from the standard OTEL_* variables (parsed here, once, for src/config.ts;
 * the SDK is never left to read the environment itself). Off unless an OTLP endpoint is set.
 */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (default) or http/json. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS (`name=value,…`, values URL-encoded): e.g. a vendor's API key. Never logged. */
  headers: Record<string, string>;
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: one export's time-out (10 s). */
  timeoutMs: number;
  /** OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION: gzip or none (default). */
  compression: 'gzip' | 'none';
  /** OTEL_SERVICE_NAME (else service.name of OTEL_RESOURCE_ATTRIBUTES, else domain-audit): each process adds its role. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`key=value,…`): e.g. deployment.environment.name=production. */
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG: a share of new traces, and whether a parent's decision wins. */
  sampler: { parentBased: boolean; ratio: number };
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be sent in one batch (5 s). */
  batchDelayMs: number;
}

type Env = Record<string, string | undefined>;

const SAMPLERS: Record<string, { parentBased: boolean; ratio?: number }> = {
  always_on: { parentBased: false, ratio: 1 },
  always_off: { parentBased: false, ratio: 0 },
  traceidratio: { parentBased: false },
  parentbased_always_on: { parentBased: true, ratio: 1 },
  parentbased_always_off: { parentBased: true, ratio: 0 },
  parentbased_traceidratio: { parentBased: true },
};

/** The trace export settings, or null (tracing off: nothing is loaded, nothing is sent). */
export function tracingSettings(env: Env): TracingSettings | null {
  if (['true', '1'].includes((env.OTEL_SDK_DISABLED ?? '').toLowerCase())) return null;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== '' && exporter !== 'otlp')
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  const url = tracesUrl(env);
  if (!url) return null;
  const resourceAttributes = pairs('OTEL_RESOURCE_ATTRIBUTES', env.OTEL_RESOURCE_ATTRIBUTES);
  return {
    url,
    protocol: protocol(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL),
    headers: {
      ...pairs('OTEL_EXPORTER_OTLP_HEADERS', env.OTEL_EXPORTER_OTLP_HEADERS),
      ...pairs('OTEL_EXPORTER_OTLP_TRACES_HEADERS', env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    timeoutMs: milliseconds(
      'OTEL_EXPORTER_OTLP_TIMEOUT',
      env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT || env.OTEL_EXPORTER_OTLP_TIMEOUT,
      10_000,
    ),
    compression: compression(env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION || env.OTEL_EXPORTER_OTLP_COMPRESSION),
    serviceName: env.OTEL_SERVICE_NAME || resourceAttributes['service.name'] || 'domain-audit',
    resourceAttributes,
    sampler: sampler(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    batchDelayMs: milliseconds('OTEL_BSP_SCHEDULE_DELAY', env.OTEL_BSP_SCHEDULE_DELAY, 5000),
  };
}

function tracesUrl(env: Env): string | null {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!signal && !base) return null;
  const name = signal ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const wrong = new Error(`${name} must be an http:// or https:// URL, got "${signal || base}"`);
  let url: URL;
  try {
    url = new URL(signal || `${base!.replace(/\/+$/, '')}/v1/traces`);
  } catch {
    throw wrong;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw wrong;
  return url.href;
}

function protocol(raw: string | undefined): TracingSettings['protocol'] {
  if (!raw || raw === 'http/protobuf') return 'http/protobuf';
  if (raw === 'http/json') return raw;
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (OTLP over HTTP, port 4318), got "${raw}"`,
  );
}

function compression(raw: string | undefined): TracingSettings['compression'] {
  if (!raw || raw === 'none') return 'none';
  if (raw === 'gzip') return raw;
  throw new Error(`OTEL_EXPORTER_OTLP_COMPRESSION must be gzip or none, got "${raw}"`);
}

/** `key=value,key2=value2` with URL-encoded values (the W3C baggage format the OTEL_* lists use). */
function pairs(name: string, raw: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of (raw ?? '').split(',')) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    const key = at > 0 ? item.slice(0, at).trim() : '';
    // The value may be a credential: the message names the variable and the key only.
    if (!key) throw new Error(`${name} must be a list of key=value pairs`);
    try {
      result[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new Error(`${name}: the value of ${key} is not URL-encoded correctly`);
    }
  }
  return result;
}

function milliseconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function sampler(name: string | undefined, arg: string | undefined): TracingSettings['sampler'] {
  const choice = SAMPLERS[(name || 'parentbased_always_on').toLowerCase()];
  if (!choice) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${Object.keys(SAMPLERS).join(', ')}, got "${name}"`);
  if (choice.ratio !== undefined) return { parentBased: choice.parentBased, ratio: choice.ratio };
  const ratio = arg === undefined || arg === '' ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be between 0 and 1, got "${arg}"`);
  return { parentBased: choice.parentBased, ratio };
}
