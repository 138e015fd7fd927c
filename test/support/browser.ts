import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../../src/browser/chromium';
import { CHROMIUM_PATH } from './chromium';
import { getStack } from './stack';

/**
 * Browser tests: one headless Chromium per run (launched on first use, closed by stopBrowser from
 * test/run.ts), a fresh context (cookies) per page, against the shared integration stack.
 */
let browserPromise: Promise<Browser> | null = null;
const contexts: BrowserContext[] = [];
let emailCounter = 0;

export const SCREENSHOT_DIR = path.join(__dirname, '..', '..', '.data', 'screenshots');

function browser(): Promise<Browser> {
  browserPromise ??= chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_FLAGS,
  });
  return browserPromise;
}

/** A page in a fresh browser context (no cookies), its base URL the stack's service. */
export async function newPage(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const { url } = await getStack();
  const context = await (await browser()).newContext({ baseURL: url, bypassCSP: options.bypassCSP ?? false });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return page;
}

export async function stopBrowser(): Promise<void> {
  for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
  if (!browserPromise) return;
  const running = await browserPromise;
  browserPromise = null;
  await running.close();
}

export function uniqueEmail(label = 'user'): string {
  return `${label}-${process.pid}-${Date.now()}-${++emailCounter}@example.com`;
}

export const TEST_PASSWORD = 'violet-harbour-lantern-42';

/** Signs a fresh user up through the form; the page ends on the overview, signed in. */
export async function signUp(
  page: Page,
  email = uniqueEmail(),
): Promise<{ email: string; password: string; workspaceId: string }> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  const { db } = await getStack();
  const row = await db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('u.email', email)
    .first('m.workspace_id');
  assert.ok(row, `sign-up of ${email} left no membership`);
  return { email, password: TEST_PASSWORD, workspaceId: row.workspace_id };
}

export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

const AXE_SOURCE = path.join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js');

/**
 * Serious and critical accessibility violations of the page as it is now. axe runs in a copy of the
 * page opened in a CSP-bypassing context (our CSP rightly forbids injected scripts), with the same cookies.
 */
export async function axe(page: Page): Promise<string[]> {
  const context = await (await browser()).newContext({ baseURL: (await getStack()).url, bypassCSP: true });
  try {
    await context.addCookies(await page.context().cookies());
    const copy = await context.newPage();
    // The page as it is (also the answer to a POST), served again at its own URL so its assets load.
    const html = await page.content();
    await copy.route(page.url(), (route) => route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' }));
    await copy.goto(page.url());
    await copy.addScriptTag({ path: AXE_SOURCE });
    const violations = await copy.evaluate(async () => {
      const result = await (globalThis as unknown as { axe: { run(): Promise<any> } }).axe.run();
      return result.violations as Array<{
        id: string;
        impact: string;
        help: string;
        nodes: Array<{ target: string[] }>;
      }>;
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  } finally {
    await context.close();
  }
}

/** A full-page screenshot under .data/screenshots/ (git-ignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // A long page on a loaded machine can take more than the default 20 s to paint whole.
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, timeout: 90_000 });
}
