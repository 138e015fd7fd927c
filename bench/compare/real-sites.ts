/**
 * The real sites of `compare:lighthouse -- --real` (bench/compare/real-sites.json): each one's built
 * output extracted at its pinned commit into a cache outside the repository, never into the unit
 * fixtures. The repository is read from a local bare mirror when there is one (`<mirror>/<owner>+<name>/repo`),
 * otherwise cloned bare from GitHub into the cache.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RealSite {
  /** The site's name in the comparison's output. */
  id: string;
  /** owner/name on GitHub. */
  repo: string;
  branch: string;
  /** The pinned commit (40 hex digits). */
  commit: string;
  /** Folder of the built output inside the repository ('' for its root), served as the site's root. */
  path: string;
  generator: string;
  language: string;
  /** Production URL prefixes rewritten to the loopback origin in text responses. */
  origins: string[];
  /** Path prefixes production serves from other repositories: 404 on loopback, so not compared. */
  elsewhere?: string[];
}

export const MANIFEST_FILE = path.join(__dirname, 'real-sites.json');
/** Outside the working tree: the sites' own scripts must not meet the project's type check or lint. */
export const DEFAULT_CACHE_DIR = path.join(os.homedir(), '.cache', 'domain-audit', 'real-sites');
export const DEFAULT_MIRROR_DIR = '/work/.mirror';

export function loadManifest(file = MANIFEST_FILE): RealSite[] {
  const sites = (JSON.parse(fs.readFileSync(file, 'utf8')) as { sites: RealSite[] }).sites;
  for (const s of sites)
    if (!/^[0-9a-f]{40}$/.test(s.commit)) throw new Error(`${s.id}: commit must be 40 hex digits, got ${s.commit}`);
  return sites;
}

/** The extracted copy of a site: its id and commit name it, so a new pin never reuses an old copy. */
export function siteDir(cacheDir: string, site: RealSite): string {
  return path.join(cacheDir, `${site.id}-${site.commit.slice(0, 12)}`);
}

/** Written last, so a half-extracted copy is never taken for a whole one. */
const MARKER = '.extracted.json';

/** Whether the cache holds this very copy (the same repository, commit and folder). */
export function isExtracted(cacheDir: string, site: RealSite): boolean {
  const marker = path.join(siteDir(cacheDir, site), MARKER);
  if (!fs.existsSync(marker)) return false;
  const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as Pick<RealSite, 'repo' | 'commit' | 'path'>;
  return m.repo === site.repo && m.commit === site.commit && m.path === site.path;
}

export interface ExtractOptions {
  cacheDir: string;
  mirrorDir: string;
  log?: (line: string) => void;
}

/** Extracts the sites not yet in the cache; returns the directory of each. */
export function ensureExtracted(sites: readonly RealSite[], opts: ExtractOptions): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const site of sites) {
    if (!isExtracted(opts.cacheDir, site)) extractSite(site, opts);
    dirs.set(site.id, siteDir(opts.cacheDir, site));
  }
  return dirs;
}

function extractSite(site: RealSite, opts: ExtractOptions): void {
  const gitDir = gitDirOf(site, opts);
  git(gitDir, ['cat-file', '-e', `${site.commit}^{commit}`]);
  const dir = siteDir(opts.cacheDir, site);
  const part = `${dir}.part`;
  fs.rmSync(part, { recursive: true, force: true });
  fs.mkdirSync(part, { recursive: true });
  const missing = writeTree(gitDir, site.path ? `${site.commit}:${site.path}` : site.commit, part);
  const index = path.join(part, 'index.html');
  if (!fs.existsSync(index))
    throw new Error(`${site.id}: no index.html at ${site.path || 'the root'} of ${site.commit}`);
  const marker = { repo: site.repo, commit: site.commit, path: site.path, missing };
  fs.writeFileSync(path.join(part, MARKER), JSON.stringify(marker, null, 2));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(part, dir);
  opts.log?.(
    `${site.id}: extracted ${site.repo}@${site.commit.slice(0, 12)}:${site.path || '/'} into ${dir}` +
      (missing.length ? ` (${missing.length} file(s) absent from the mirror: ${missing.slice(0, 3).join(', ')}…)` : ''),
  );
}

/** The local mirror when present, else a bare clone of the branch in the cache. */
function gitDirOf(site: RealSite, opts: ExtractOptions): string {
  const local = path.join(opts.mirrorDir, site.repo.replace('/', '+'), 'repo');
  if (fs.existsSync(path.join(local, 'HEAD'))) return local;
  const clone = path.join(opts.cacheDir, '_git', site.repo.replace('/', '+'));
  if (!fs.existsSync(path.join(clone, 'HEAD'))) {
    opts.log?.(`${site.id}: cloning https://github.com/${site.repo} (${site.branch})`);
    fs.mkdirSync(path.dirname(clone), { recursive: true });
    const url = `https://github.com/${site.repo}.git`;
    const run = spawnSync('git', ['clone', '--bare', '--single-branch', '--branch', site.branch, url, clone], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`${site.id}: cloning ${url} failed: ${run.stderr}`);
  }
  return clone;
}

/**
 * Writes every file of the tree under `dir`, blob by blob (`git cat-file --batch`) rather than with
 * `git archive`, which stops at the first blob a mirror lacks (mirrors may leave out files of 4 MiB
 * and more: large data files, never pages). Returns the paths of the files left out.
 */
function writeTree(gitDir: string, treeish: string, dir: string): string[] {
  const entries = git(gitDir, ['ls-tree', '-r', '-z', treeish])
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)];
      const [mode, type, oid] = meta.split(' ');
      return { mode: mode!, type: type!, oid: oid!, file };
    })
    // Regular files only: symbolic links and submodules are not part of what Pages serves.
    .filter((e) => e.type === 'blob' && (e.mode === '100644' || e.mode === '100755'));
  const batch = spawnSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], {
    input: entries.map((e) => e.oid).join('\n') + '\n',
    maxBuffer: 2 ** 31 - 1,
  });
  if (batch.status !== 0) throw new Error(`git cat-file --batch in ${gitDir}: ${String(batch.stderr)}`);
  const out = batch.stdout;
  const missing: string[] = [];
  let at = 0;
  for (const e of entries) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString('latin1');
    at = eol + 1;
    if (header.endsWith(' missing')) {
      missing.push(e.file);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    const target = path.join(dir, e.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, out.subarray(at, at + size));
    at += size + 1;
  }
  return missing;
}

function git(gitDir: string, args: string[]): string {
  const run = spawnSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} in ${gitDir}: ${run.stderr.trim()}`);
  return run.stdout;
}
