import type { RenderedFacts, RenderedPageChecks } from '../../analyzers/rendered-facts';
import type { Db } from '../../db/knex';
import { storableJson } from '../../text/storable';
import { upsertLinks, upsertTargets, type LinkFound, type TargetFound } from './frontier-commit';

/** One rendered page: its claimed URL, what rendering showed, and its rendered-DOM checks (`render: "all"`). */
export interface RenderedPageCommit {
  url: string;
  rendered: RenderedFacts;
  checks?: RenderedPageChecks;
}

/** The rendering of one page step's application shells (or a chunk of its pages), as it is committed. */
export interface RenderStepCommit {
  /** The rendering's key among the crawl's steps (render-step.ts renderStepKey): each commits once. */
  stepKey: string;
  pages: RenderedPageCommit[];
  /** Links that only the rendered pages have, found on them as a page step finds its pages' links. */
  links: LinkFound[];
  targets: TargetFound[];
  externalCheckBudget: number;
}

export interface RenderStepResult {
  rendered: number;
  unrenderable: number;
  pagesDiscovered: number;
}

/**
 * Writes a rendering in one transaction: each page's rendered facts (and checks), its frontier entry
 * crawled, and the links it showed through the page step's own path (referrers counted, depth kept
 * shallowest, known URLs and aliases not queued again; the budget is spent when they are crawled). A
 * rendering committed before (another try, or the release after a time-out) stands: nothing is
 * written twice.
 */
export async function commitRenderStep(db: Db, crawlId: string, commit: RenderStepCommit): Promise<RenderStepResult> {
  return db.transaction(async (trx) => {
    await trx('crawl_runs').where({ crawl_id: crawlId }).forUpdate().first('crawl_id');
    const { stepKey } = commit;
    const done = (await trx('crawl_steps').where({ crawl_id: crawlId, step: stepKey }).first('result')) as
      { result: string } | undefined;
    if (done) return JSON.parse(done.result) as RenderStepResult;
    for (const page of commit.pages)
      await trx('crawl_pages')
        .where({ crawl_id: crawlId, url: page.url })
        .update({
          rendered: JSON.stringify(page.rendered),
          // Axe's snippets and the console's text come from the page (docs/decisions.md, "Bytes from outside").
          ...(page.checks ? { rendered_checks: storableJson(page.checks) } : {}),
        });
    await trx('crawl_frontier')
      .where({ crawl_id: crawlId, state: 'rendering' })
      .whereRaw('url = ANY(?::text[])', [commit.pages.map((p) => p.url)])
      .update({ state: 'crawled' });
    const discovered = await upsertLinks(trx, crawlId, commit.links);
    const externalAdded = await upsertTargets(trx, crawlId, commit.targets, commit.externalCheckBudget);
    const [run] = (await trx('crawl_runs')
      .where({ crawl_id: crawlId })
      .increment({ pages_discovered: discovered, external_targets: externalAdded })
      .returning(['pages_discovered'])) as { pages_discovered: number }[];
    const result: RenderStepResult = {
      rendered: commit.pages.filter((p) => p.rendered.status === 'rendered').length,
      unrenderable: commit.pages.filter((p) => p.rendered.status === 'unrenderable').length,
      pagesDiscovered: run!.pages_discovered,
    };
    await trx('crawl_steps').insert({ crawl_id: crawlId, step: stepKey, result: JSON.stringify(result) });
    return result;
  });
}
