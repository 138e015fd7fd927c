import { DEFAULT_CACHE_DIR, DEFAULT_MIRROR_DIR, ensureExtracted, loadManifest } from './compare/real-sites';
import { serveDirectory } from './compare/static-server';

/**
 * `node --import tsx bench/real-sites.ts [--cache dir] [--mirror dir] [--serve id]`: extracts the
 * built output of every site of bench/compare/real-sites.json at its pinned commit into the cache
 * (default ~/.cache/domain-audit/real-sites), from a local bare mirror when there is one, else by a
 * bare clone from GitHub. `--serve id` then serves that site on loopback until interrupted, to look
 * at it in a browser. `compare:lighthouse -- --real` extracts what is missing by itself.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const sites = loadManifest();
  const dirs = ensureExtracted(sites, {
    cacheDir: opt('--cache') ?? DEFAULT_CACHE_DIR,
    mirrorDir: opt('--mirror') ?? DEFAULT_MIRROR_DIR,
    log: (line) => console.log(line),
  });
  for (const s of sites) console.log(`${s.id.padEnd(18)} ${s.repo}@${s.commit.slice(0, 12)} → ${dirs.get(s.id)}`);
  const id = opt('--serve');
  if (id) {
    const site = sites.find((s) => s.id === id);
    if (!site) throw new Error(`no real site ${id}`);
    const server = await serveDirectory(dirs.get(id)!, site.origins);
    console.log(`${id} on ${server.origin}/ (Ctrl-C ends)`);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
