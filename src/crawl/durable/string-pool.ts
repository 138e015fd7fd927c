import type { HeaderMap } from '../../analyzers/snapshot';
import { StringInterner } from '../../text/string-interner';

/** The list every page without redirects or referrers shares (nothing writes to a snapshot's lists). */
const EMPTY: readonly never[] = Object.freeze([]);

/**
 * One instance of each distinct string read back from a stored crawl (docs/architecture.md, "Durable
 * crawl", Memory). Every row parsed from Postgres gets fresh strings, so a 100,000-page crawl would
 * hold each page's URL a dozen times over: as its own address, in the referrer lists of the pages it
 * links to, and in header values every page shares. Header maps that are equal, and empty lists, are
 * kept once the same way: most pages of a site answer with the same headers. Kept only while the
 * crawl is read back.
 */
export class StringPool extends StringInterner {
  private readonly headerMaps = new Map<string, HeaderMap>();
  private readonly singletons = new Map<string, readonly string[]>();

  /** JSON.parse with every string value interned (property names are already shared by V8). */
  parse<T>(json: string): T {
    return JSON.parse(json, (_key, value: unknown) => (typeof value === 'string' ? this.intern(value) : value)) as T;
  }

  /**
   * The list with its strings interned. The empty list is one frozen instance, and so is each list of
   * one string: the pages a page links to first keep it as their only referrer, and a list of their
   * own was 56 bytes a page.
   */
  internAll(texts: readonly string[]): readonly string[] {
    if (texts.length === 0) return EMPTY;
    if (texts.length > 1) return texts.map((text) => this.intern(text));
    const text = this.intern(texts[0]!);
    let list = this.singletons.get(text);
    if (list === undefined) this.singletons.set(text, (list = Object.freeze([text])));
    return list;
  }

  /** The first header map read with the same names and values in the same order. */
  headers(headers: HeaderMap): HeaderMap {
    const key = JSON.stringify(headers);
    const known = this.headerMaps.get(key);
    if (known !== undefined) return known;
    this.headerMaps.set(key, headers);
    return headers;
  }

  /** An empty list as the one shared instance; any other as it is. */
  list<T>(items: readonly T[]): readonly T[] {
    return items.length === 0 ? EMPTY : items;
  }
}
