import { accountUsage } from '../../accounts/usage';
import { auditOptionIncluded, type GatedAuditOption } from '../../accounts/tier-gate';
import { BURST_LIMIT, FEATURE_MIN_TIER, monthlyQuota, TIER_RULES, tierAtLeast } from '../../accounts/tiers';
import { TIERS, type Tier } from '../../schemas/audit';
import { requireLogin } from '../access';
import { When } from '../components';
import type { DashboardDeps } from '../deps';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { signedIn, type DashboardContext } from '../state';

/** How each gated feature is named to customers. */
const FEATURES: Record<keyof typeof FEATURE_MIN_TIER, string> = {
  webhooks: 'Webhooks',
  pdf_reports: 'PDF reports',
  branding: 'Report branding',
  ip_allowlists: 'IP allowlists for API keys',
  sites: 'Monitored sites (pro 10, team 50, enterprise unlimited)',
  shares: 'Share links and badges',
};

/** How each audit option gated by tier (options of POST /v1/audits) is named to customers. */
const AUDIT_OPTIONS: Record<GatedAuditOption, string> = {
  render_all: 'Render every page (render: all)',
};

function TierCard(props: { tier: Tier; current: Tier }) {
  const rules = TIER_RULES[props.tier];
  const quota = rules.monthlyQuota === null ? 'Negotiated (usually 1,000)' : String(monthlyQuota(props.tier, null));
  return (
    <section class="card" aria-labelledby={`tier-${props.tier}`}>
      <h3 id={`tier-${props.tier}`}>
        {props.tier}
        {props.tier === props.current && ' (your plan)'}
      </h3>
      <ul>
        <li>{quota} live audits a month</li>
        <li>Up to {rules.pageBudget.toLocaleString('en')} pages crawled per audit</li>
        {(Object.keys(FEATURES) as Array<keyof typeof FEATURES>).map((feature) => (
          <li>
            {FEATURES[feature]}: {tierAtLeast(props.tier, FEATURE_MIN_TIER[feature]) ? 'included' : 'not included'}
          </li>
        ))}
        {(Object.keys(AUDIT_OPTIONS) as GatedAuditOption[]).map((option) => (
          <li>
            {AUDIT_OPTIONS[option]}: {auditOptionIncluded({ tier: props.tier }, option) ? 'included' : 'not included'}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `/plan`: the current plan and usage, and what each tier unlocks. Changing plans is an operator action. */
export function planRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/plan', requireLogin, async (ctx) => {
    const c = ctx as DashboardContext;
    const usage = await accountUsage(deps.db, signedIn(c).workspace.accountId, deps.clock.now());
    render(
      c,
      <Layout ctx={c} title="Plan and usage">
        <p>
          You are on the <strong>{usage.tier}</strong> plan: {usage.used} of {usage.limit} live audits used this month,{' '}
          {usage.remaining} left, reset on <When at={usage.period.end} />. At most {BURST_LIMIT.limit} audits may start
          per {BURST_LIMIT.windowSeconds} seconds.
        </p>
        <p>To change plans, write to your account manager or support: plan changes are made for you.</p>
        <h2>What each plan includes</h2>
        <div class="cards">
          {TIERS.map((tier) => (
            <TierCard tier={tier} current={usage.tier} />
          ))}
        </div>
      </Layout>,
    );
  });
}
