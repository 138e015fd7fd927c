import type { ComponentChildren } from 'preact';
import { codeSpans } from '../reports/pdf/code-spans';
import { signedIn, type DashboardContext } from './state';

/** A POST form of a signed-in page, carrying the session's CSRF token; `confirm` asks first (with the script). */
export function PostForm(props: {
  ctx: DashboardContext;
  action: string;
  confirm?: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={props.action} data-confirm={props.confirm} class={props.class}>
      <input type="hidden" name="_csrf" value={signedIn(props.ctx).csrfToken} />
      {props.children}
    </form>
  );
}

/** A secret shown once: read-only, selectable, with a copy button added by the script. */
export function SecretField(props: { id: string; label: string; value: string; hint: string }) {
  return (
    <div class="notice" role="status">
      <label for={props.id}>{props.label}</label>
      <div class="secret">
        <input id={props.id} type="text" readOnly value={props.value} data-copy aria-describedby={`${props.id}-hint`} />
      </div>
      <p class="hint" id={`${props.id}-hint`}>
        {props.hint}
      </p>
    </div>
  );
}

export function ErrorMessage(props: { message?: string }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** A point in time as people read it (UTC, to the minute), machine-readable in <time>. */
export function When(props: { at: string | Date | null; never?: string }) {
  if (!props.at) return <>{props.never ?? 'Never'}</>;
  const at = new Date(props.at);
  return <time dateTime={at.toISOString()}>{at.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>;
}

/** The labelled domain field of a form that audits or monitors a site (its value kept after a refusal). */
export function DomainField(props: { id: string; value?: string }) {
  return (
    <>
      <label for={props.id}>Domain</label>
      <input
        id={props.id}
        name="domain"
        type="text"
        inputMode="url"
        required
        placeholder="https://example.com"
        value={props.value ?? ''}
        autoComplete="url"
      />
    </>
  );
}

/**
 * Text whose backticked parts are code, as recommendations mark them (`noindex`): those parts in
 * <code> without the backticks, split by the PDF report's own rule (src/reports/pdf/code-spans.ts).
 * Every part is text to preact, so markup inside backticks is shown, never run.
 */
export function CodeText(props: { text: string }) {
  return <>{codeSpans(props.text).map((span) => (span.code ? <code>{span.text}</code> : span.text))}</>;
}
