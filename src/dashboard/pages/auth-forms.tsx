import type { ComponentChildren } from 'preact';
import { Document } from '../render';

/** A signed-out page with one form (sign-up, log-in, accept invitation). */
export function AuthPage(props: {
  title: string;
  action: string;
  csrf: string;
  error?: string;
  submit: string;
  children: ComponentChildren;
  footer?: ComponentChildren;
}) {
  return (
    <Document title={props.title}>
      <main id="main" class="narrow">
        <h1>{props.title}</h1>
        {props.error && (
          <p class="error" role="alert">
            {props.error}
          </p>
        )}
        <form method="post" action={props.action} class="stack">
          <input type="hidden" name="_csrf" value={props.csrf} />
          {props.children}
          <button type="submit">{props.submit}</button>
        </form>
        {props.footer}
      </main>
    </Document>
  );
}

export function EmailField(props: { value?: string; readOnly?: boolean }) {
  return (
    <div>
      <label for="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="username"
        required
        maxLength={254}
        value={props.value ?? ''}
        readOnly={props.readOnly}
      />
    </div>
  );
}

export function PasswordField(props: { id?: string; label?: string; isNew: boolean; hint?: string }) {
  const id = props.id ?? 'password';
  return (
    <div>
      <label for={id}>{props.label ?? 'Password'}</label>
      <input
        id={id}
        name={id}
        type="password"
        autocomplete={props.isNew ? 'new-password' : 'current-password'}
        required
        minLength={props.isNew ? 10 : undefined}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      />
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}
