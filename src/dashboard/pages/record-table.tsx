import type { ComponentChildren } from 'preact';
import { PostForm } from '../components';
import type { DashboardContext } from '../state';

/** One record's row: the cell that names it (a row header), then its other cells in column order. */
export interface RecordRow {
  head: ComponentChildren;
  cells: ComponentChildren[];
}

/**
 * A page's records as one table: a caption, a column header each, a row a record headed by the cell
 * that names it, and, for those who may change them (`actions` given), an Actions column of forms.
 */
export function RecordTable<Item>(props: {
  caption: ComponentChildren;
  columns: readonly string[];
  items: readonly Item[];
  row: (item: Item) => RecordRow;
  actions?: (item: Item) => ComponentChildren;
  /** Below the table, inside its scrolling wrapper. */
  after?: ComponentChildren;
}) {
  const { actions } = props;
  return (
    <div class="table-wrap">
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
            {actions ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => {
            const { head, cells } = props.row(item);
            return (
              <tr>
                <th scope="row">{head}</th>
                {cells.map((cell) => (
                  <td>{cell}</td>
                ))}
                {actions ? <td>{actions(item)}</td> : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {props.after}
    </div>
  );
}

/** One action on a row: a POST of its own, its button named for the record it acts on. */
export function RowAction(props: {
  ctx: DashboardContext;
  action: string;
  /** Asked first (with the script), for what cannot be undone. */
  confirm?: string;
  label: string;
  ariaLabel: string;
  danger?: boolean;
}) {
  return (
    <PostForm ctx={props.ctx} action={props.action} class="inline" confirm={props.confirm}>
      <button type="submit" class={props.danger ? 'danger' : undefined} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </PostForm>
  );
}
