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

  internAll(texts: readonly string[]): readonly string[] {
    return texts.length === 0 ? EMPTY : texts.map((text) => this.intern(text));
  }

  /** The first header map read with the same names and values in the same order. */
  headers(headers: HeaderMap): HeaderMap {
    const key = JSON.stringify(headers);
    const known = this.headerMaps.get(key);
    if (known !== undefined) return known;
    this.headerMaps.set(key, headers);
    return headers;
  }

  /**
   * A list of the one string as one shared instance per string: the pages a page links to first
   * keep it as their only referrer, each in a list of its own (56 bytes a page) unless shared.
   */
  one(text: string): readonly string[] {
    const interned = this.intern(text);
    let list = this.singletons.get(interned);
    if (list === undefined) this.singletons.set(interned, (list = Object.freeze([interned])));
    return list;
  }

  /** An empty list as the one shared instance; any other as it is. */
  list<T>(items: readonly T[]): readonly T[] {
    return items.length === 0 ? EMPTY : items;
  }
}
