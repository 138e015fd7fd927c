import { getElementsByTagName, textContent } from 'domutils';
import { isTag, type ChildNode, type Element } from 'domhandler';
import { pageCss } from './page-css';
import { attr, hasAncestor, snippet, truncate, type ParsedPage } from './parse';
import { elementSubject } from './subject';
import { EVIDENCE_MAX, MAX_ISSUES_PER_PAGE, pageAnalyzer, pageIssues, type Analyzer, type Issue } from './types';

/** Accessibility checks of form fields, control names and the ids ARIA refers to. */

function nonBlank(v: string | undefined): boolean {
  return v !== undefined && v.trim() !== '';
}

// ── A11Y_FORM_LABEL_MISSING ──────────────────────────────────────────────────────────────────────

/** Input types that need no label: not shown, or named by their value or alt. */
const UNLABELLED_INPUT_TYPES = new Set(['hidden', 'submit', 'button', 'image', 'reset']);

/** Labelled by <label for>, a wrapping <label>, aria-label, aria-labelledby or title (a placeholder is judged apart). */
export function fieldHasLabel(el: Element, labelFor: ReadonlySet<string>): boolean {
  const id = attr(el, 'id');
  if (id !== undefined && id !== '' && labelFor.has(id)) return true;
  if (hasAncestor(el, 'label')) return true;
  return nonBlank(attr(el, 'aria-label')) || nonBlank(attr(el, 'aria-labelledby')) || nonBlank(attr(el, 'title'));
}

export const formLabelMissing = pageAnalyzer('A11Y_FORM_LABEL_MISSING', (p) => {
  if (!p.isHtml) return null;
  const fields = [
    ...p.elements('input').filter((i) => !UNLABELLED_INPUT_TYPES.has((attr(i, 'type') ?? '').trim().toLowerCase())),
    ...p.elements('select'),
    ...p.elements('textarea'),
  ].filter(
    (f) => !pageCss(p).isHidden(f) && !/^(presentation|none)$/.test((attr(f, 'role') ?? '').trim().toLowerCase()),
  );
  if (fields.length === 0) return null;
  const labelFor = new Set(
    p
      .elements('label')
      .map((l) => attr(l, 'for'))
      .filter((v): v is string => v !== undefined && v !== ''),
  );
  const issues: Issue[] = [];
  for (const f of fields) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    if (fieldHasLabel(f, labelFor)) continue;
    // axe accepts a non-empty placeholder as the field's name; it is still a weak one, so it is noted.
    if (nonBlank(attr(f, 'placeholder')))
      issues.push({
        outcome: 'warn',
        severity: 'info',
        message: `A form field (<${f.name}>) is named only by its placeholder, which disappears while typing.`,
        evidence: snippet(p, f),
        subject: elementSubject(f, p.url),
      });
    else
      issues.push({
        outcome: 'fail',
        message: `A form field (<${f.name}>) has no label.`,
        evidence: snippet(p, f),
        subject: elementSubject(f, p.url),
      });
  }
  return pageIssues(issues);
});

// ── A11Y_CONTROL_NAME_MISSING ────────────────────────────────────────────────────────────────────

/** An accessible name from text, ARIA, title, or the alt text of an image inside. */
export function controlHasName(el: Element): boolean {
  if (nonBlank(attr(el, 'aria-label')) || nonBlank(attr(el, 'aria-labelledby')) || nonBlank(attr(el, 'title')))
    return true;
  if (el.name === 'input') return nonBlank(attr(el, 'value'));
  if (textContent(el).trim() !== '') return true;
  return (
    getElementsByTagName('img', el.children, true).some((img) => nonBlank(attr(img, 'alt'))) ||
    getElementsByTagName('input', el.children, true).some((i) => nonBlank(attr(i, 'alt'))) ||
    getElementsByTagName('svg', el.children, true).some((s) => nonBlank(attr(s, 'aria-label')))
  );
}

export const controlNameMissing = pageAnalyzer('A11Y_CONTROL_NAME_MISSING', (p) => {
  if (!p.isHtml) return null;
  const controls = [
    ...p.elements('a').filter((a) => attr(a, 'href') !== undefined && !hasAncestor(a, 'svg')),
    ...p.elements('button'),
    ...p.elements('input').filter((i) => (attr(i, 'type') ?? '').trim().toLowerCase() === 'button'),
  ].filter((c) => !pageCss(p).isHidden(c)); // hidden by markup or the page's CSS: not exposed, needs no name
  if (controls.length === 0) return null;
  const issues: Issue[] = [];
  for (const c of controls) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    if (!controlHasName(c)) {
      const what = c.name === 'a' ? 'A link' : 'A button';
      issues.push({
        outcome: 'fail',
        message: `${what} has no accessible name (no text, aria-label, title or image alt).`,
        evidence: snippet(p, c),
        subject: elementSubject(c, p.url),
      });
    }
  }
  return pageIssues(issues);
});

// ── A11Y_DUPLICATE_ID_ARIA ───────────────────────────────────────────────────────────────────────

const ID_REF_ATTRIBUTES = ['aria-labelledby', 'aria-describedby', 'aria-controls'] as const;

interface IdUse {
  count: number;
  first: Element[];
}

/** Every element's id with its count, and the ids that ARIA attributes and label[for] refer to, in one walk. */
function idsAndReferences(p: ParsedPage): { ids: Map<string, IdUse>; refs: Map<string, Element> } {
  const ids = new Map<string, IdUse>();
  const refs = new Map<string, Element>();
  if (!p.doc) return { ids, refs };
  const stack: ChildNode[] = [...p.doc.children].reverse(); // popped in document order
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    const id = node.attribs.id;
    if (id !== undefined && id !== '') {
      const use = ids.get(id) ?? { count: 0, first: [] };
      use.count++;
      if (use.first.length < 2) use.first.push(node);
      ids.set(id, use);
    }
    for (const name of ID_REF_ATTRIBUTES) {
      const v = node.attribs[name];
      if (v) for (const ref of v.split(/\s+/)) if (ref !== '' && !refs.has(ref)) refs.set(ref, node);
    }
    if (node.name === 'label' && node.attribs.for && !refs.has(node.attribs.for)) refs.set(node.attribs.for, node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return { ids, refs };
}

export const duplicateIdAria = pageAnalyzer('A11Y_DUPLICATE_ID_ARIA', (p) => {
  if (!p.isHtml) return null;
  const { ids, refs } = idsAndReferences(p);
  if (refs.size === 0) return null; // nothing refers to an id: the check does not apply
  const issues: Issue[] = [];
  for (const [ref, by] of refs) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    const use = ids.get(ref);
    if (!use || use.count < 2) continue;
    const evidence = truncate(
      `${snippet(p, by, 90)} refers to id="${ref}", used ${use.count} times: ${use.first.map((e) => snippet(p, e, 80)).join(' | ')}`,
      EVIDENCE_MAX,
    );
    issues.push({
      outcome: 'fail',
      message: `The id "${truncate(ref, 60)}" referenced by ARIA or a label appears ${use.count} times on the page.`,
      evidence,
      subject: `id=${ref}`,
    });
  }
  return pageIssues(issues);
});

export const A11Y_FORM_ANALYZERS: readonly Analyzer[] = [formLabelMissing, controlNameMissing, duplicateIdAria];
