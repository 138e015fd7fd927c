import { mainTextWords } from '../../analyzers/main-text-words';
import type { RenderedChecks, RenderedFacts } from '../../analyzers/rendered-facts';
import type { SnapshotPage } from '../../analyzers/snapshot';
import type { Db } from '../../db/knex';
import { extractLinks } from '../page-links';
import { linksFound, type PageFinds } from './links-found';
import { commitRenderStep, type RenderedPageCommit, type RenderStepResult } from './render-commit';
import { committedStep, loadCrawlRun } from './run-store';
import { databaseWait, stepContext, type StepEnvironment } from './step-context';

/** The pages of one page step (its result's `shells`) to render: its application shells, or with `render: "all"` a chunk of its HTML pages. */
export interface RenderStepInput {
  crawlId: string;
  step: number;
  /** With `render: "all"`: which chunk of the step's pages these are (each chunk commits on its own). */
  chunk?: number;
  urls: string[];
}

/** A page's DOM once its scripts have run, or why it could not be had (src/browser/dom-render.ts). */
export type DomRender =
  | { status: 'rendered'; url: string; html: string; checks?: RenderedChecks }
  | { status: 'unrenderable'; reason: string };

/** One rendering per step, or per chunk of a step with `render: "all"`. */
export function renderStepKey(input: Pick<RenderStepInput, 'step' | 'chunk'>): string {
  return input.chunk === undefined ? `render-${input.step}` : `render-${input.step}-${input.chunk}`;
}

/** A shell as the page step stored it. */
interface StoredShell {
  url: string;
  page: Omit<SnapshotPage, 'body'>;
  body: string;
}

/**
 * Renders one page step's application shells, or a chunk of its pages (`render`: the browser pool),
 * and commits what they show once JavaScript has run: their rendered facts, their rendered-DOM checks
 * when the render made them (`render: "all"`), and the links only the rendered DOM has, found on the
 * page as the page step finds a response's links, so the crawl goes on through them. Each page's
 * rendered DOM is dropped once its facts are counted. A page that cannot render is recorded as such;
 * a retry after the commit returns the committed result.
 */
export async function runRenderStep(
  db: Db,
  input: RenderStepInput,
  env: StepEnvironment,
  render: (url: string) => Promise<DomRender>,
): Promise<RenderStepResult> {
  const wait = databaseWait(env);
  const stepKey = renderStepKey(input);
  const done = await wait(() => committedStep<RenderStepResult>(db, input.crawlId, stepKey));
  if (done) return done;
  const run = await wait(() => loadCrawlRun(db, input.crawlId));
  if (!run) throw new Error(`crawl ${input.crawlId} does not exist`);
  const shells = await wait(() => storedShells(db, input));
  // Each page's finds in its place among the step's pages, however the renders finish.
  const finds: Array<PageFinds | undefined> = [];
  const pages = await Promise.all(
    input.urls.map(async (url, i): Promise<RenderedPageCommit> => {
      const shell = shells.find((s) => s.url === url);
      if (!shell) return { url, rendered: { status: 'unrenderable', reason: 'the page was not stored' } };
      const dom = await render(shell.page.finalUrl);
      if (dom.status === 'unrenderable') return { url, rendered: dom };
      const { facts, onlyRendered } = renderedFacts(shell, dom);
      finds[i] = { pageUrl: shell.page.finalUrl, depth: shell.page.depth, links: onlyRendered };
      return { url, rendered: facts, ...(dom.checks ? { checks: { url: shell.page.finalUrl, ...dom.checks } } : {}) };
    }),
  );
  const { context, robots } = stepContext(run, env);
  const found = await linksFound(
    context,
    robots,
    finds.filter((f): f is PageFinds => f !== undefined),
  );
  return wait(() =>
    commitRenderStep(db, input.crawlId, {
      stepKey,
      pages,
      ...found,
      externalCheckBudget: env.externalCheckBudget,
    }),
  );
}

/**
 * The shells of a step that could not be rendered in time (no browser worker took them within the
 * browser stage's bound): recorded as not rendered, so the crawl goes on without what they would show.
 */
export async function releaseShells(
  db: Db,
  input: RenderStepInput & { reason: string },
  env: Pick<StepEnvironment, 'untilDatabaseAnswers' | 'externalCheckBudget'>,
): Promise<RenderStepResult> {
  const rendered: RenderedFacts = { status: 'unrenderable', reason: input.reason };
  return databaseWait(env)(() =>
    commitRenderStep(db, input.crawlId, {
      stepKey: renderStepKey(input),
      pages: input.urls.map((url) => ({ url, rendered })),
      links: [],
      targets: [],
      externalCheckBudget: env.externalCheckBudget,
    }),
  );
}

/** Links and main-text words in the response and in the rendered DOM, each counted the same way. */
export function renderedFacts(
  shell: { page: Pick<SnapshotPage, 'finalUrl'>; body: string },
  dom: { url: string; html: string },
): { facts: RenderedFacts; onlyRendered: string[] } {
  const inResponse = new Set(extractLinks(shell.body, shell.page.finalUrl).links);
  const rendered = new Set(extractLinks(dom.html, dom.url).links);
  const onlyRendered = [...rendered].filter((url) => !inResponse.has(url));
  return {
    facts: {
      status: 'rendered',
      linksInResponse: inResponse.size,
      linksRendered: rendered.size,
      linksOnlyRendered: onlyRendered.length,
      wordsInResponse: mainTextWords(shell.body),
      wordsRendered: mainTextWords(dom.html),
    },
    onlyRendered,
  };
}

async function storedShells(db: Db, input: RenderStepInput): Promise<StoredShell[]> {
  const rows = (await db('crawl_pages')
    .where({ crawl_id: input.crawlId })
    .whereRaw('url = ANY(?::text[])', [input.urls])
    .whereNotNull('body')
    .select('url', 'page', 'body')) as { url: string; page: string; body: string }[];
  return rows.map((row) => ({ url: row.url, page: JSON.parse(row.page) as StoredShell['page'], body: row.body }));
}
