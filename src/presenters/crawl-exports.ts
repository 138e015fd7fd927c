import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import { auditPageSchema } from '../schemas/api-pages';

/**
 * The CSV exports of an audit (GET /audits/{audit_id}/pages.csv and findings.csv): RFC 4180 (a
 * header row, CRLF line ends, fields holding a comma, a quote or a line break quoted, quotes doubled),
 * UTF-8, streamed from an async iterable of rows with backpressure: the next rows are read only as
 * the client takes the bytes. A text cell a spreadsheet would run as a formula (OWASP "CSV
 * injection": starting with = + - @, a tab or a carriage return, or their full-width forms) gets a
 * leading apostrophe, which spreadsheets do not display: csv-stringify's `escape_formulas`, which
 * leaves numbers alone.
 */

/** Columns of pages.csv: the fields of GET /audits/{audit_id}/pages, in that order. */
export const PAGE_CSV_COLUMNS = auditPageSchema.required;

/** Columns of findings.csv: one row per (finding, URL); a finding without URLs has one row with empty url. */
export const FINDING_CSV_COLUMNS = [
  'finding_id',
  'analyzer',
  'category',
  'severity',
  'title',
  'count',
  'url',
  'depth',
  'referrers',
] as const;

/**
 * The CSV of `rows` (objects keyed by `columns`; null and undefined are empty cells, booleans
 * `true`/`false`) as a readable stream for a response body. A failing source ends the stream with
 * its error (the client sees a cut-off download), told to `onError`; a client that goes away
 * destroys the stream, which stops the source.
 */
export function csvStream(
  columns: readonly string[],
  rows: AsyncIterable<object>,
  onError: (err: Error) => void = () => undefined,
): Readable {
  const csv = stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    // A line break inside a cell is quoted too (csv-stringify only quotes the record delimiter once one is set).
    quote_record_delimiter: true,
    escape_formulas: true,
    cast: { boolean: (value) => (value ? 'true' : 'false') },
  });
  pipeline(Readable.from(rows), csv, (err) => {
    if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') onError(err);
  });
  return csv;
}
