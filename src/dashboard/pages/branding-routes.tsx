import { accountUsage } from '../../accounts/usage';
import { ApiError } from '../../errors';
import { newRequestId } from '../../ids';
import {
  brandingIncluded,
  BrandingRefused,
  setBranding,
  showBranding,
  type BrandingActor,
} from '../../reports/branding-service';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { field, readForm, uploadedFiles } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
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
 * `/branding` and `/test/branding` (pro and up): the report branding through
 * src/reports/branding-service.ts (the API's tier gate, validation and logo check), and a preview of the cover.
 */
export function brandingPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/branding', requireLogin, async (ctx) => {
    const c = ctx as DashboardContext;
    await renderBranding(c, deps, { saved: c.query.saved === '1' });
  });

  pages.post('/branding', requireLogin, requireRole('developer'), async (ctx) => {
    const c = ctx as DashboardContext;
    const form = await readForm(c);
    const upload = uploadedFiles(c).find((file) => file.field === 'logo' && file.data.length > 0);
    try {
      await setBranding(deps, await brandingActor(c, deps), {
        displayName: field(form, 'display_name'),
        primaryColor: field(form, 'primary_color'),
        footerText: field(form, 'footer_text'),
        contactLine: field(form, 'contact_line'),
        logo: upload?.data ?? (form.get('keep_logo') === '1' ? 'keep' : undefined),
      });
    } catch (err) {
      if (err instanceof BrandingRefused) {
        const requestId = newRequestId();
        deps.log?.(`dashboard branding refused (${requestId}): ${err.message}`);
        const message = `${FIELD_LABELS[err.field] ?? err.field} ${err.reason}.`;
        return renderBranding(c, deps, { problem: { message, requestId }, status: 422 });
      }
      if (err instanceof ApiError && err.code === 'tier_required')
        return renderStatus(c, 403, 'Report branding needs the pro plan', err.message);
      throw err;
    }
    c.status = 303;
    c.redirect(`${modePath(c.state.mode, '/branding')}?saved=1`);
  });
}

async function brandingActor(c: DashboardContext, deps: DashboardDeps): Promise<BrandingActor> {
  const me = signedIn(c);
  const account = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  return { scope: { workspaceId: me.workspace.id, mode: c.state.mode }, account };
}

async function renderBranding(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { saved?: boolean; problem?: { message: string; requestId: string }; status?: number },
): Promise<void> {
  const me = signedIn(c);
  const actor = await brandingActor(c, deps);
  const allowed = brandingIncluded(actor.account);
  const stored = allowed ? await showBranding(deps, actor) : null;
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
