/**
 * One instance of each distinct string handed to it. Strings parsed or read back apart are fresh
 * copies even when equal (a URL in every referrer list, a check's message on every page); kept once,
 * a large site's analysis holds each of them once (docs/architecture.md, "Durable crawl", Memory).
 */
export class StringInterner {
  private readonly strings = new Map<string, string>();

  intern(text: string): string {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    this.strings.set(text, text);
    return text;
  }
}
