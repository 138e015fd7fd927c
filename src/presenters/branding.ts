import { imageFormat } from '../reports/branding';
import type { StoredBranding } from '../reports/branding-repository';
import { iso } from './iso';

/** A workspace's branding: snake_case, the logo described rather than returned. */
export function presentBranding(stored: StoredBranding) {
  const b = stored.branding;
  return {
    display_name: b?.displayName ?? null,
    primary_color: b?.primaryColor ?? null,
    footer_text: b?.footerText ?? null,
    contact_line: b?.contactLine ?? null,
    logo: b?.logo ? { content_type: `image/${imageFormat(b.logo)}`, byte_size: b.logo.length } : null,
    updated_at: iso(stored.updatedAt),
  };
}
