import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARCHITECTURE_DOC, readFolderTable } from '../support/architecture-doc';
import {
  fileCycles,
  folderCycles,
  folderGraph,
  folderOf,
  importsBetween,
  readSources,
  ROOT,
  type SourceFile,
} from '../support/code-structure';

/**
 * The code's shape: folders depend one way, workflow code stays deterministic, files and functions
 * stay readable, and the environment is read in one place. `node --import tsx
 * test/tools/code-structure.ts` prints the same figures in full.
 */

/** What workflow code may import from src/: pure types and data, nothing with I/O or clocks. */
const WORKFLOW_ALLOWED_SRC = ['src/schemas/audit.ts'];
/** Domain folders: they throw ApiError from src/errors.ts, never depend on the HTTP layer. */
const DOMAIN_FOLDERS = ['src/accounts', 'src/audits', 'src/outbound', 'src/reports', 'src/webhooks'];
const MAX_FILE_LINES = 320;
const MAX_FUNCTION_LINES = 80;
/**
 * Files that may read process.env besides src/config.ts: src/setup/temporal-cli.ts finds the
 * machine's Temporal CLI (PATH, XDG_CACHE_HOME, TEMPORAL_CLI_PATH, Go's environment), also for the
 * test tooling that runs without a service configuration; processes/main.ts hands its environment on
 * to the worker processes it forks, which load their own configuration from it; src/cli/env.ts gives
 * the customer CLI its AUDIT_API_URL, AUDIT_API_KEY and CI (client-side code: it never loads the
 * service's configuration).
 */
const ENV_READERS = ['src/config.ts', 'src/setup/temporal-cli.ts', 'processes/main.ts', 'src/cli/env.ts'];
/** The customer CLI runs on the customer's machine: besides its own folder it uses the typed client only. */
const CLI_ALLOWED = ['src/cli', 'src/client'];
/**
 * Analyzers are pure functions of the snapshot (docs/analyzers.md): modules that open sockets or
 * resolve names belong to src/crawl, which probes the site. node:http is allowed for its
 * STATUS_CODES table only, and the folders that do I/O for their types only.
 */
const NETWORK_MODULES = /^(node:)?(net|tls|dns|dns\/promises|dgram|https|http2)$|^(undici|dns-packet)$/;
const NETWORK_FOLDERS = ['src/crawl', 'src/outbound', 'src/browser', 'src/db'];

describe('architecture', () => {
  let sources: SourceFile[];
  before(() => {
    sources = readSources(MAX_FUNCTION_LINES);
  });

  it('has no folder-level import cycle', () => {
    const cycles = folderCycles(sources).map((cycle) => {
      const edges = cycle.flatMap((from) =>
        cycle.flatMap((to) => (from === to ? [] : importsBetween(sources, from, to))),
      );
      return `${cycle.join(' ↔ ')}:\n  ${edges.join('\n  ')}`;
    });
    assert.deepEqual(cycles, []);
  });

  it('has no file-level import cycle', () => {
    assert.deepEqual(
      fileCycles(sources).map((cycle) => cycle.join(' ↔ ')),
      [],
    );
  });

  it(`documents every folder in ${ARCHITECTURE_DOC} with its layer and what it may import`, () => {
    const rows = new Map(readFolderTable().map((row) => [row.folder, row]));
    const graph = folderGraph(sources);
    const folders = new Set([...graph.keys(), ...srcFolders()]);
    const problems = [
      ...[...folders].filter((f) => !rows.has(f)).map((f) => `${f}: no row`),
      ...[...rows.keys()].filter((f) => !folders.has(f)).map((f) => `${f}: a row, but no such folder or file`),
      ...[...graph].flatMap(([from, targets]) =>
        [...targets]
          .filter((to) => rows.has(from) && !rows.get(from)!.mayImport.includes(to))
          .map((to) => `${from} → ${to} not in its row: ${importsBetween(sources, from, to).join(', ')}`),
      ),
      ...[...rows.values()].flatMap((row) =>
        row.mayImport
          .filter((to) => !rows.has(to) || rows.get(to)!.layer > row.layer)
          .map(
            (to) =>
              `${row.folder} (layer ${row.layer}) may import ${to}: ${rows.has(to) ? 'a higher layer' : 'no row'}`,
          ),
      ),
    ];
    assert.deepEqual(problems, []);
  });

  it('keeps src/analyzers free of network I/O (the probes of the site live in src/crawl)', () => {
    const io = sources
      .filter((s) => folderOf(s.file) === 'src/analyzers')
      .flatMap((s) => [
        ...s.packages.filter((p) => NETWORK_MODULES.test(p)).map((p) => `${s.file} imports ${p}`),
        ...s.valueImports.filter((t) => NETWORK_FOLDERS.includes(folderOf(t))).map((t) => `${s.file} → ${t}`),
        ...(/\bfetch\s*\(/.test(read(s.file)) ? [`${s.file} calls fetch()`] : []),
        ...httpBeyondStatusCodes(s.file),
      ]);
    assert.deepEqual(io, []);
  });

  it('keeps workflow code to workflows/ and the pure modules it may use', () => {
    const outside = sources
      .filter((s) => s.file.startsWith('workflows/'))
      .flatMap((s) =>
        s.imports
          .filter((t) => t.startsWith('src/') && !WORKFLOW_ALLOWED_SRC.includes(t))
          .map((t) => `${s.file} → ${t}`),
      );
    assert.deepEqual(outside, []);
  });

  it('lets workflows know activities by type only (activity code never enters the workflow bundle)', () => {
    const valueImports = sources
      .filter((s) => s.file.startsWith('workflows/'))
      .filter((s) => /^import\s+(?!type\b)[^;]*from\s+'(\.\.\/)+activities\b/m.test(read(s.file)))
      .map((s) => s.file);
    assert.deepEqual(valueImports, []);
  });

  it('keeps domain folders independent of the HTTP layer', () => {
    const intoApi = sources
      .filter((s) => DOMAIN_FOLDERS.includes(folderOf(s.file)))
      .flatMap((s) => s.imports.filter((t) => folderOf(t) === 'src/api').map((t) => `${s.file} → ${t}`));
    assert.deepEqual(intoApi, []);
  });

  it('keeps the customer CLI to the typed client (no server code in it)', () => {
    const outside = sources
      .filter((s) => folderOf(s.file) === 'src/cli')
      .flatMap((s) => s.imports.filter((t) => !CLI_ALLOWED.includes(folderOf(t))).map((t) => `${s.file} → ${t}`));
    assert.deepEqual(outside, []);
  });

  it(`has no production file over ${MAX_FILE_LINES} lines`, () => {
    assert.deepEqual(
      sources.filter((s) => s.lines > MAX_FILE_LINES).map((s) => `${s.file} (${s.lines} lines)`),
      [],
    );
  });

  it(`has no production function over ${MAX_FUNCTION_LINES} lines`, () => {
    assert.deepEqual(
      sources.flatMap((s) => s.longFunctions.map((f) => `${s.file} ${f.name} (${f.lines} lines)`)),
      [],
    );
  });

  it('reads the environment only through src/config.ts', () => {
    const readers = sources.filter((s) => /\bprocess\.env\b/.test(read(s.file))).map((s) => s.file);
    assert.deepEqual(
      readers.filter((file) => !ENV_READERS.includes(file)),
      [],
    );
  });
});

function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** Every folder directly in src/, source files or not: each needs its row in the docs. */
function srcFolders(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `src/${entry.name}`);
}

/** Imports of node:http other than `import { STATUS_CODES } from 'node:http'`. */
function httpBeyondStatusCodes(file: string): string[] {
  const imports = [...read(file).matchAll(/^import\s+([^;]*?)\s+from\s+'(?:node:)?http';/gm)];
  return imports
    .filter((m) => !/^\{\s*STATUS_CODES\s*\}$/.test(m[1]!))
    .map((m) => `${file} imports ${m[1]} from node:http`);
}
