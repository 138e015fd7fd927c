import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ReadLoadResult {
  latencies: number[];
  failures: Array<{ path: string; status: number; text: string }>;
}

export interface ReadLoad {
  /** Counts latencies from now on. */
  measure(): void;
  /** Ends the loops and returns what was measured (the same result when called again). */
  stop(): Promise<ReadLoadResult>;
}

/**
 * Reads the API from a process of its own (`loops` concurrent loops over `paths`, `pauseMs` between
 * reads), so that what is measured is the API, not the test process's own pauses. Resolves once every
 * path has been read once and the loops run.
 */
export async function startReadLoad(options: {
  baseUrl: string;
  key: string;
  paths: string[];
  loops?: number;
  pauseMs?: number;
}): Promise<ReadLoad> {
  const args = JSON.stringify({ loops: 2, pauseMs: 10, ...options });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'read-load-process.ts'), args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    });
    void exited.then((code) => reject(new Error(`read load exited (${code}) before it was ready`)));
  });
  await ready;
  let stopped: Promise<ReadLoadResult> | undefined;
  return {
    measure: () => child.stdin.write('measure\n'),
    stop: () =>
      (stopped ??= (async () => {
        child.stdin.end('stop\n');
        const code = await exited;
        if (code !== 0) throw new Error(`read load exited with ${code}`);
        return JSON.parse(output.slice('ready\n'.length)) as ReadLoadResult;
      })()),
  };
}
