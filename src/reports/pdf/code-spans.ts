/**
 * Recommendations mark code with backticks, as Markdown does (`noindex`, `<title>`). The report
 * sets those parts in the monospace font without the backticks; an unpaired backtick stays text.
 */
export interface TextSpan {
  text: string;
  code: boolean;
}

export function codeSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  const pattern = /`([^`]+)`/g;
  let last = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m.index > last) spans.push({ text: text.slice(last, m.index), code: false });
    spans.push({ text: m[1]!, code: true });
    last = m.index + m[0].length;
  }
  if (last < text.length || spans.length === 0) spans.push({ text: text.slice(last), code: false });
  return spans;
}
