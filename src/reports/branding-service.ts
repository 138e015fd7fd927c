import { featureIncluded, requireFeature, type TierHolder } from '../accounts/tier-gate';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import type { Mode } from '../schemas/audit';
import { BrandingError, validateBranding } from './branding';
import { loadBranding, saveBranding, type StoredBranding } from './branding-repository';
import { LogoChecks } from './logo-checks';

/**
 * The report branding actions, one implementation each for the API (`/v1/branding`), the dashboard's
 * branding page and the admin CLI's `branding` commands (README, "PDF reports"): the tier
 * gate (pro and up), the validation of every field and the test-embedding of the logo, before
 * anything is stored. A refused field is a BrandingRefused (400 invalid_request) naming it.
 */
export interface BrandingServiceDeps {
  db: Db;
  clock: Clock;
  /** Where logos are test-embedded; by default one worker thread per process (decoding may cost seconds of CPU). */
  logoChecks?: Pick<LogoChecks, 'check'>;
}

/** Whose branding: one workspace and mode, and the account's tier. */
export interface BrandingActor {
  scope: { workspaceId: string; mode: Mode };
  account: TierHolder;
}

/** What a new branding is made of; `logo: 'keep'` keeps the stored logo (a form that uploads none). */
export interface BrandingInput {
  displayName: string;
  primaryColor: string;
  footerText?: string;
  contactLine?: string;
  logo?: Buffer | 'keep';
}

/** A refused branding field: `field` as src/reports/branding.ts names it, `reason` in plain words. */
export class BrandingRefused extends ApiError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super('invalid_request', `field ${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} ${reason}`);
  }
}

let sharedLogoChecks: LogoChecks | undefined;

/** Whether the account's tier includes branding: pages show the form only then. */
export function brandingIncluded(account: TierHolder): boolean {
  return featureIncluded(account, 'branding');
}

export async function showBranding(deps: Pick<BrandingServiceDeps, 'db'>, actor: BrandingActor) {
  requireFeature(actor.account, 'branding');
  return loadBranding(deps.db, actor.scope);
}

/** Replaces the whole branding; reports rendered before are rendered again when next requested. */
export async function setBranding(
  deps: BrandingServiceDeps,
  actor: BrandingActor,
  input: BrandingInput,
): Promise<StoredBranding> {
  requireFeature(actor.account, 'branding');
  const uploaded = Buffer.isBuffer(input.logo) ? input.logo : undefined;
  const kept = input.logo === 'keep' ? (await loadBranding(deps.db, actor.scope)).branding?.logo : undefined;
  const branding = refusedAsApiError(() =>
    validateBranding({
      displayName: input.displayName,
      primaryColor: input.primaryColor,
      footerText: input.footerText || undefined,
      contactLine: input.contactLine || undefined,
      logo: uploaded ?? kept,
    }),
  );
  // A kept logo passed this check when it was uploaded.
  if (uploaded) await refusedAsApiError(() => (deps.logoChecks ?? logoChecks()).check(uploaded));
  return saveBranding(deps.db, actor.scope, branding, deps.clock.now());
}

/**
 * The branding a report of this workspace and mode is shown with (a shared report's page): as
 * stored, without the gate; who may see the report sees its look. Null is the neutral look.
 */
export async function reportBranding(deps: Pick<BrandingServiceDeps, 'db'>, scope: BrandingActor['scope']) {
  return (await loadBranding(deps.db, scope)).branding;
}

/** Back to the neutral, unbranded report. */
export async function clearBranding(deps: BrandingServiceDeps, actor: BrandingActor): Promise<StoredBranding> {
  requireFeature(actor.account, 'branding');
  return saveBranding(deps.db, actor.scope, null, deps.clock.now());
}

function logoChecks(): LogoChecks {
  sharedLogoChecks ??= new LogoChecks();
  return sharedLogoChecks;
}

function refusedAsApiError<T>(check: () => T): T {
  const refused = (err: unknown): never => {
    if (err instanceof BrandingError) throw new BrandingRefused(err.field, err.message.replace(/^branding\.\w+: /, ''));
    throw err;
  };
  try {
    const result = check();
    return (result instanceof Promise ? result.catch(refused) : result) as T;
  } catch (err) {
    return refused(err);
  }
}
