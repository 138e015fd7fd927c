/** What a URL's shape says about it, before any request: one rule for every crawl. */

/** Linked URLs that are certainly not HTML documents: link-checked instead of crawled. */
const NON_DOCUMENT_EXT =
  /\.(?:pdf|zip|gz|tgz|rar|7z|tar|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|m4v|mov|avi|webm|ogg|wav|flac|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|exe|dmg|apk|iso)$/i;

export function isNonDocumentUrl(url: string): boolean {
  return NON_DOCUMENT_EXT.test(new URL(url).pathname);
}

/** `/dir/index.html` and `/dir/` are one page on static hosts: both map to the directory URL. */
export function indexAliasKey(url: string): string {
  return url.replace(/^([^?#]*\/)index\.html?(?=$|[?#])/i, '$1');
}
