import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/** One exported span, flattened: the resource's service.name beside the span's own fields. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (spans arrive at /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Every export request: its content type and headers. */
  requests: Array<{ path: string; contentType: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (a collector's part the tests need): accepts exports as
 * protobuf (`application/x-protobuf`) or JSON, gzipped or not, and answers 200 with an empty
 * ExportTraceServiceResponse. `port` 0 picks a free one.
 */
export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType, headers: req.headers });
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
        spans.push(...(contentType.includes('json') ? fromJson(body) : fromProtobuf(body)));
        res.writeHead(200, { 'content-type': contentType }).end(contentType.includes('json') ? '{}' : '');
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type JsonValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type JsonAttributes = Array<{ key: string; value: JsonValue }>;

function jsonAttributes(list: JsonAttributes | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue)),
    ]),
  );
}

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: Array<{
      resource: { attributes: JsonAttributes };
      scopeSpans: Array<{
        spans: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonAttributes;
        }>;
      }>;
    }>;
  };
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const resourceAttributes = jsonAttributes(resource.attributes);
    return scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        service: String(resourceAttributes['service.name']),
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        resource: resourceAttributes,
      })),
    );
  });
}

/** A protobuf message's fields by number (just what the OTLP trace messages use: varints and length-delimited). */
function fields(buffer: Buffer): Map<number, Array<Buffer | bigint>> {
  const result = new Map<number, Array<Buffer | bigint>>();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    let value: Buffer | bigint;
    if (wire === 0) value = varint();
    else if (wire === 1 || wire === 5) {
      value = buffer.subarray(at, at + (wire === 1 ? 8 : 4));
      at += wire === 1 ? 8 : 4;
    } else if (wire === 2) {
      const length = Number(varint());
      value = buffer.subarray(at, at + length);
      at += length;
    } else throw new Error(`unexpected wire type ${wire}`);
    result.set(field, [...(result.get(field) ?? []), value]);
  }
  return result;
}

const messages = (map: Map<number, Array<Buffer | bigint>>, field: number) => (map.get(field) ?? []) as Buffer[];
const text = (map: Map<number, Array<Buffer | bigint>>, field: number) => messages(map, field)[0]?.toString('utf8');
const hex = (map: Map<number, Array<Buffer | bigint>>, field: number) => messages(map, field)[0]?.toString('hex');

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string = 1; bool = 2; int = 3; double = 4 }. */
function protobufAttributes(list: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map((pair) => {
      const keyValue = fields(pair);
      const value = fields(messages(keyValue, 2)[0] ?? Buffer.alloc(0));
      const scalar = value.get(1)
        ? text(value, 1)
        : value.get(2)
          ? value.get(2)![0] === 1n
          : value.get(3)
            ? Number(value.get(3)![0])
            : value.get(4)
              ? (value.get(4)![0] as Buffer).readDoubleLE()
              : undefined;
      return [text(keyValue, 1), scalar];
    }),
  );
}

/** ExportTraceServiceRequest → ResourceSpans (resource = 1, scope_spans = 2) → ScopeSpans (spans = 2) → Span. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return messages(fields(body), 1).flatMap((resourceSpans) => {
    const parts = fields(resourceSpans);
    const resource = protobufAttributes(messages(fields(messages(parts, 1)[0] ?? Buffer.alloc(0)), 1));
    return messages(parts, 2).flatMap((scopeSpans) =>
      messages(fields(scopeSpans), 2).map((encoded) => {
        // Span: trace_id = 1, span_id = 2, parent_span_id = 4, name = 5, kind = 6, attributes = 9.
        const span = fields(encoded);
        return {
          service: String(resource['service.name']),
          traceId: hex(span, 1)!,
          spanId: hex(span, 2)!,
          parentSpanId: hex(span, 4) || undefined,
          name: text(span, 5)!,
          kind: Number(span.get(6)?.[0] ?? 0),
          attributes: protobufAttributes(messages(span, 9)),
          resource,
        };
      }),
    );
  });
}
