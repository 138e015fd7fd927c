import type { Branding } from '../../reports/branding';
import { BRANDING_LIMITS } from '../../reports/branding';
import { ProblemNotice, UpgradeNotice } from './audits-notices';
import { brandingCoverDataUrl } from './branding-cover';

export interface BrandingPageProps {
  basePath: string;
  plansHref: string;
  csrfToken: string;
  /** Whether the account's tier includes report branding (pro and up). */
  allowed: boolean;
  canEdit: boolean;
  /** The stored branding; null while the reports use the neutral look. */
  branding: Branding | null;
  saved?: boolean;
  problem?: { message: string; requestId?: string };
}

/** Report branding: the agency's name, colour, footer, contact line and logo, with a cover preview. */
export function BrandingPage(props: BrandingPageProps) {
  if (!props.allowed)
    return <UpgradeNotice feature="Report branding and PDF reports" tier="pro" plansHref={props.plansHref} />;
  const b = props.branding;
  return (
    <>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.saved ? (
        <div class="notice notice-success" role="status">
          <p>Branding saved: new PDF reports use it.</p>
        </div>
      ) : null}
      <div class="split">
        {props.canEdit ? (
          <form method="post" action={`${props.basePath}/branding`} enctype="multipart/form-data" class="card">
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            <label for="branding-name">Display name</label>
            <input
              id="branding-name"
              name="display_name"
              required
              maxLength={BRANDING_LIMITS.displayName}
              value={b?.displayName ?? ''}
            />
            <label for="branding-color">Colour</label>
            <input id="branding-color" name="primary_color" type="color" value={b?.primaryColor ?? '#2f4858'} />
            <label for="branding-footer">Footer text</label>
            <input
              id="branding-footer"
              name="footer_text"
              maxLength={BRANDING_LIMITS.footerText}
              value={b?.footerText ?? ''}
            />
            <label for="branding-contact">Contact line</label>
            <input
              id="branding-contact"
              name="contact_line"
              maxLength={BRANDING_LIMITS.contactLine}
              value={b?.contactLine ?? ''}
            />
            <label for="branding-logo">Logo (PNG or JPEG, at most {BRANDING_LIMITS.logoBytes / 1024} KiB)</label>
            <input id="branding-logo" name="logo" type="file" accept="image/png,image/jpeg" />
            {b?.logo ? (
              <label class="checkbox">
                <input type="checkbox" name="keep_logo" value="1" checked /> Keep the current logo when no new one is
                chosen
              </label>
            ) : null}
            <button type="submit">Save branding</button>
          </form>
        ) : null}
        <figure class="cover-preview">
          <img
            src={brandingCoverDataUrl(b)}
            alt={`Preview of the report cover: ${b?.displayName ?? 'neutral look'} on a ${b?.primaryColor ?? 'dark'} band`}
            width={298}
            height={421}
          />
          <figcaption>Preview of the PDF report's cover</figcaption>
        </figure>
      </div>
    </>
  );
}
