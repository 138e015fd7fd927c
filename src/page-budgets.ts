import { TIERS, type Tier } from './schemas/audit';

export type PageBudgets = Readonly<Record<Tier, number>>;

/** The tiers' page budgets (docs/decisions.md, "Whole-site audits"): pages answering HTML an audit may crawl. */
export const DEFAULT_PAGE_BUDGETS: PageBudgets = Object.freeze({
  free: 100,
  pro: 10_000,
  team: 100_000,
  enterprise: 1_000_000,
});

/**
 * PAGE_BUDGETS=free:100,pro:10000,…: the tiers named replace their defaults, the others keep them.
 * A wrong entry stops the process at start-up rather than auditing with a budget nobody chose.
 */
export function parsePageBudgets(raw: string | undefined): PageBudgets {
  const budgets: Record<Tier, number> = { ...DEFAULT_PAGE_BUDGETS };
  if (raw === undefined || raw.trim() === '') return Object.freeze(budgets);
  for (const entry of raw.split(',')) {
    const match = /^\s*([a-z]+)\s*:\s*(\d+)\s*$/.exec(entry);
    const tier = match?.[1] as Tier | undefined;
    const pages = Number(match?.[2]);
    if (!tier || !TIERS.includes(tier) || !Number.isSafeInteger(pages) || pages < 1) {
      throw new Error(`PAGE_BUDGETS must be tier:pages pairs such as "free:100,pro:10000" (pages ≥ 1), got "${raw}"`);
    }
    budgets[tier] = pages;
  }
  return Object.freeze(budgets);
}
