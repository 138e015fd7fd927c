import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { getStack } from './stack';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');

/** Runs the admin CLI exactly as the test contract spells it: npm run --silent admin -- … */
export async function admin(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const stack = await getStack();
  const env = { ...process.env, DATABASE_URL: stack.config.databaseUrl };
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const failure = err as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}
