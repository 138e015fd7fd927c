import { FEATURE_MIN_TIER, tierAtLeast } from '../../accounts/tiers';
import { accountUsage } from '../../accounts/usage';
import { newRequestId } from '../../ids';
import { BrandingError, validateBranding } from '../../reports/branding';
import { loadBranding, saveBranding } from '../../reports/branding-repository';
import { LogoChecks } from '../../reports/logo-checks';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { featureGate } from '../feature-gate';
import { field, readForm, uploadedFiles } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';
import { BrandingPage } from './branding';

const FIELD_LABELS: Record<string, string> = {
  displayName: 'Display name',
  primaryColor: 'Colour',
  footerText: 'Footer text',
  contactLine: 'Contact line',
  logo: 'Logo',
};

/**
 * `/branding` and `/test/branding` (pro and up): the report branding with the API's validation and
 * its worker-thread logo check, and a preview of the cover.
 */
export function brandingPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  // Decoding a logo may cost seconds of CPU: one worker thread, one check at a time (as the API).
  const logoChecks = new LogoChecks();

  pages.get('/branding', requireLogin, async (ctx) => {
    const c = ctx as DashboardContext;
    await renderBranding(c, deps, { saved: c.query.saved === '1' });
  });

  pages.post(
    '/branding',
    requireLogin,
    requireRole('developer'),
    featureGate(deps, 'branding', 'Report branding needs the pro plan'),
    async (ctx) => {
      const c = ctx as DashboardContext;
      const form = await readForm(c);
      const scope = { workspaceId: signedIn(c).workspace.id, mode: c.state.mode };
      const upload = uploadedFiles(c).find((file) => file.field === 'logo' && file.data.length > 0);
      const kept = form.get('keep_logo') === '1' ? (await loadBranding(deps.db, scope)).branding?.logo : undefined;
      try {
        const branding = validateBranding({
          displayName: field(form, 'display_name'),
          primaryColor: field(form, 'primary_color'),
          footerText: field(form, 'footer_text') || undefined,
          contactLine: field(form, 'contact_line') || undefined,
          logo: upload?.data ?? kept,
        });
        if (upload) await logoChecks.check(upload.data);
        await saveBranding(deps.db, scope, branding, deps.clock.now());
      } catch (err) {
        if (!(err instanceof BrandingError)) throw err;
        const requestId = newRequestId();
        deps.log?.(`dashboard branding refused (${requestId}): ${err.message}`);
        const message = `${FIELD_LABELS[err.field] ?? err.field} ${err.message.replace(/^branding\.\w+: /, '')}.`;
        return renderBranding(c, deps, { problem: { message, requestId }, status: 422 });
      }
      c.status = 303;
      c.redirect(`${modePath(c.state.mode, '/branding')}?saved=1`);
    },
  );
}

async function renderBranding(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { saved?: boolean; problem?: { message: string; requestId: string }; status?: number },
): Promise<void> {
  const me = signedIn(c);
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  const allowed = tierAtLeast(usage.tier, FEATURE_MIN_TIER.branding);
  const stored = allowed ? await loadBranding(deps.db, { workspaceId: me.workspace.id, mode: c.state.mode }) : null;
  render(
    c,
    <Layout ctx={c} title="Report branding">
      <BrandingPage
        basePath={modePath(c.state.mode, '')}
        plansHref="/plan"
        csrfToken={me.csrfToken}
        allowed={allowed}
        canEdit={may(c, 'developer')}
        branding={stored?.branding ?? null}
        saved={extra.saved}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}
