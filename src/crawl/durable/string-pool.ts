/**
 * One instance of each distinct string read back from a stored crawl (docs/architecture.md, "Durable
 * crawl", Memory). Every row parsed from Postgres gets fresh strings, so a 100,000-page crawl would
 * hold each page's URL a dozen times over: as its own address, in the referrer lists of the pages it
 * links to, and in header values every page shares. Kept only while the crawl is read back.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();

  intern(text: string): string {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    this.strings.set(text, text);
    return text;
  }

  /** JSON.parse with every string value interned (property names are already shared by V8). */
  parse<T>(json: string): T {
    return JSON.parse(json, (_key, value: unknown) => (typeof value === 'string' ? this.intern(value) : value)) as T;
  }

  internAll(texts: readonly string[]): string[] {
    return texts.map((text) => this.intern(text));
  }
}
