import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: any;
  text: string;
}

/**
 * Sends bytes as they are to the server (for requests fetch refuses to send: control bytes in
 * headers, malformed request lines, oversized header blocks) and reads the answer until the
 * server closes the connection.
 */
export function rawRequest(baseUrl: string, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while the rest of an oversized request is still being written.
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks).toString('latin1')));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(request);
  });
}

/**
 * A request with `Expect: 100-continue` as a careful client sends it: `head` first, `body` only once the
 * server's interim answer has come. Returns that interim answer as sent and the final response (read
 * until the server closes: send `Connection: close`).
 */
export function rawRequestWithContinue(
  baseUrl: string,
  head: string,
  body: string,
  timeoutMs = 10_000,
): Promise<{ interim: string; response: RawResponse }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let interim: string | undefined;
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (interim !== undefined || end < 0) return;
      interim = received.slice(0, end + 4);
      received = received.slice(end + 4);
      socket.write(body);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve({ interim: interim ?? '', response: parse(received) });
      } catch (err) {
        reject(err);
      }
    });
    socket.write(head);
  });
}

function parse(raw: string): RawResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`not an HTTP response: ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...lines] = raw.slice(0, headEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers = new Map(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const text = Buffer.from(raw.slice(headEnd + 4), 'latin1').toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers: { get: (name) => headers.get(name.toLowerCase()) ?? null }, body, text };
}
