import type { PageOrder, PageSortColumn } from '../../audits/page-order';
import type { AuditPage } from '../../schemas/api-pages';
import { LARGEST_FIRST, type PagesForm } from './audit-pages-query';
import { ProblemNotice } from './audits-notices';

export interface AuditPagesProps {
  /** `/audits/{id}` or `/test/audits/{id}`. */
  auditBase: string;
  /** Whether the audit has completed (only then has it pages to list). */
  completed: boolean;
  form: PagesForm;
  order: PageOrder;
  rows: AuditPage[];
  nextCursor: string | null;
  /** Whether this is a later page (a cursor was followed). */
  later: boolean;
  problems: string[];
}

const COLUMNS: Array<[PageSortColumn, string]> = [
  ['url', 'URL'],
  ['status', 'Status'],
  ['depth', 'Depth'],
  ['inlinks', 'Inlinks'],
  ['response_ms', 'Response'],
  ['bytes', 'Size'],
];

const ORDER_WORDS: Record<PageSortColumn, [string, string]> = {
  url: ['by URL, A to Z', 'by URL, Z to A'],
  status: ['by status, lowest first', 'by status, highest first'],
  depth: ['by depth, shallowest first', 'by depth, deepest first'],
  inlinks: ['by inlinks, fewest first', 'by inlinks, most first'],
  response_ms: ['by response time, fastest first', 'by response time, slowest first'],
  bytes: ['by size, smallest first', 'by size, largest first'],
};

/**
 * `/audits/{id}/pages`: every URL the crawl requested, a page at a time (the API's listing and
 * filters), sortable by column, with the CSV of all of them. Plain links and a GET form: no script.
 */
export function AuditPagesPage(props: AuditPagesProps) {
  const { auditBase } = props;
  const listed = `${auditBase}/pages`;
  const href = (params: Record<string, string | undefined>) => {
    const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => !!entry[1]));
    return query.size ? `${listed}?${query}` : listed;
  };
  const orderParams =
    props.order.column === 'crawl' ? {} : { sort: props.order.column, order: props.order.descending ? 'desc' : 'asc' };
  return (
    <>
      <p>
        <a href={auditBase}>Back to the audit</a>
      </p>
      {props.problems.length ? <ProblemNotice message={props.problems.join(' ')} /> : null}
      {!props.completed ? (
        <p>The crawl’s pages are listed here once the audit has completed.</p>
      ) : (
        <>
          <PagesFilterForm action={listed} form={props.form} order={props.order} />
          <p class="actions">
            <a href={`${auditBase}/pages.csv`} download>
              Download CSV
            </a>
            <span class="hint">Every page of the crawl, in crawl order, with all the columns.</span>
          </p>
          <PagesTable
            {...props}
            sortHref={(column, descending) => href({ ...props.form, sort: column, order: descending ? 'desc' : 'asc' })}
          />
          <p class="pager">
            {props.later ? <a href={href({ ...props.form, ...orderParams })}>First page</a> : null}
            {props.nextCursor ? (
              <a href={href({ ...props.form, ...orderParams, cursor: props.nextCursor })}>Next</a>
            ) : null}
          </p>
        </>
      )}
    </>
  );
}

function PagesFilterForm(props: { action: string; form: PagesForm; order: PageOrder }) {
  const { form, order } = props;
  return (
    <form method="get" action={props.action} class="filters">
      <div>
        <label for="pages-status">Status</label>
        <input id="pages-status" name="status" type="text" value={form.status} aria-describedby="pages-filter-hint" />
      </div>
      <div>
        <label for="pages-min-depth">Minimum depth</label>
        <input
          id="pages-min-depth"
          name="min_depth"
          type="text"
          inputMode="numeric"
          value={form.min_depth}
          aria-describedby="pages-filter-hint"
        />
      </div>
      <div>
        <label for="pages-max-depth">Maximum depth</label>
        <input
          id="pages-max-depth"
          name="max_depth"
          type="text"
          inputMode="numeric"
          value={form.max_depth}
          aria-describedby="pages-filter-hint"
        />
      </div>
      <div>
        <label for="pages-indexable">Indexable</label>
        <select id="pages-indexable" name="indexable">
          <option value="">Any</option>
          <option value="true" selected={form.indexable === 'true'}>
            Yes
          </option>
          <option value="false" selected={form.indexable === 'false'}>
            No
          </option>
        </select>
      </div>
      {order.column === 'crawl' ? null : (
        <>
          <input type="hidden" name="sort" value={order.column} />
          <input type="hidden" name="order" value={order.descending ? 'desc' : 'asc'} />
        </>
      )}
      <button type="submit">Filter</button>
      {Object.values(form).some(Boolean) ? <a href={props.action}>Clear filters</a> : null}
      <p class="hint" id="pages-filter-hint">
        Status: a code such as 404, or a class such as 4xx. Depth: clicks from the home page, 0 being the home page.
      </p>
    </form>
  );
}

function PagesTable(props: AuditPagesProps & { sortHref: (column: PageSortColumn, descending: boolean) => string }) {
  const { order } = props;
  if (props.rows.length === 0) return <p>No page matches these filters.</p>;
  const sortedBy =
    order.column === 'crawl' ? 'in crawl order' : `sorted ${ORDER_WORDS[order.column][order.descending ? 1 : 0]}`;
  return (
    <div class="table-wrap">
      <table class="pages">
        <caption>Pages of the crawl, {sortedBy}; choose a column heading to sort by it</caption>
        <thead>
          <tr>
            {COLUMNS.map(([column, label]) => {
              const current = order.column === column;
              const descending = current ? !order.descending : LARGEST_FIRST.has(column);
              return (
                <th scope="col" aria-sort={current ? (order.descending ? 'descending' : 'ascending') : undefined}>
                  <a href={props.sortHref(column, descending)}>{label}</a>
                  {current ? <span aria-hidden="true">{order.descending ? ' ▼' : ' ▲'}</span> : null}
                </th>
              );
            })}
            <th scope="col">Indexable</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((page) => (
            <tr>
              <th scope="row" class="url">
                {page.url}
                {page.title ? <span class="hint">{page.title}</span> : null}
                {page.redirect_to ? <span class="hint">Redirects to {page.redirect_to}</span> : null}
              </th>
              <td>{page.status ?? 'Not fetched'}</td>
              <td>{page.depth ?? 'Sitemap only'}</td>
              <td>{page.inlinks}</td>
              <td>{page.response_ms} ms</td>
              <td>{size(page.bytes)}</td>
              <td>{page.indexable ? 'Yes' : 'No'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
