import { displayWidth } from './display-width';
import type { Issue } from './types';

/** How long a title may be, in display width: search results show about 60 columns of it. */
const TITLE_MIN_WIDTH = 30;
const TITLE_MAX_WIDTH = 60;

/** A warning when the title is too short or too long to describe the page in search results. */
export function titleLengthIssue(title: string, evidence: string): Issue | null {
  const width = displayWidth(title);
  if (width < TITLE_MIN_WIDTH)
    return {
      outcome: 'warn',
      message: `The title is only ${width} characters wide (under ${TITLE_MIN_WIDTH}; wide characters count 2).`,
      evidence,
      subject: `short ${title}`,
    };
  if (width > TITLE_MAX_WIDTH)
    return {
      outcome: 'warn',
      message: `The title is ${width} characters wide (over ${TITLE_MAX_WIDTH}; wide characters count 2), so search results cut it off.`,
      evidence,
      subject: `long ${title}`,
    };
  return null;
}
