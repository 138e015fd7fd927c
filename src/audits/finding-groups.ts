import { CATEGORIES, SEVERITIES, type Category, type Finding, type Severity } from '../schemas/audit';

export interface FindingGroup {
  category: Category;
  bySeverity: { severity: Severity; findings: Finding[] }[];
}

/**
 * An audit's findings as a reader scans them: by category in the catalog's order, then by severity
 * from critical down. Empty categories and severities are left out.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups: FindingGroup[] = [];
  for (const category of CATEGORIES) {
    const inCategory = findings.filter((f) => f.category === category);
    if (inCategory.length === 0) continue;
    const bySeverity = SEVERITIES.map((severity) => ({
      severity,
      findings: inCategory.filter((f) => f.severity === severity),
    })).filter((group) => group.findings.length > 0);
    groups.push({ category, bySeverity });
  }
  return groups;
}
