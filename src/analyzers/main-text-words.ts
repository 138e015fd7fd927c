import { parseDocument } from 'htmlparser2';
import { mainText } from './seo-structure-duplicates';
import { textWords } from './simhash';

/**
 * Words of a document's main text (outside the site chrome), as SEO_DUPLICATE_CONTENT counts them:
 * the crawl's rendering step counts a response and its rendered DOM alike (rendered-facts.ts).
 */
export function mainTextWords(html: string): number {
  const doc = parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  return textWords(mainText({ doc })).length;
}
