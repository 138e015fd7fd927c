/** Severity letters of the catalog data: critical, high, medium, low, info. */
export type SeverityLetter = 'C' | 'H' | 'M' | 'L' | 'I';

/** One analyzer of the catalog as data; the category follows from the code's prefix. */
export type CatalogRow = readonly [
  code: string,
  severity: SeverityLetter,
  title: string,
  why: string,
  recommendation: string,
];
