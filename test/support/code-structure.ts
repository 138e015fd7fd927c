import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Production code: what the structure rules (sizes, one-way folders) apply to. */
export const ROOT = path.resolve(__dirname, '../..');
const PRODUCTION_DIRS = ['src', 'workflows', 'activities', 'temporal', 'processes'];

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  lines: number;
  /** Relative imports resolved to repository paths (type-only imports included: they couple too). */
  imports: string[];
  /** Those of `imports` that bring in values, not types alone: what runs when the file is loaded. */
  valueImports: string[];
  /** Package and Node module specifiers as written (`node:tls`, `undici`). */
  packages: string[];
  /** Functions (declarations, methods, arrows) longer than the limit given to `readSources`. */
  longFunctions: Array<{ name: string; lines: number }>;
}

export function readSources(longFunctionLines = 80): SourceFile[] {
  const files = PRODUCTION_DIRS.flatMap((dir) => listTs(path.join(ROOT, dir)));
  return files.map((absolute) => {
    const text = fs.readFileSync(absolute, 'utf8');
    const source = ts.createSourceFile(absolute, text, ts.ScriptTarget.ES2022, true);
    const imports: string[] = [];
    const valueImports: string[] = [];
    const packages: string[] = [];
    const longFunctions: SourceFile['longFunctions'] = [];
    const visit = (node: ts.Node) => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        const specifier = node.moduleSpecifier.text;
        if (!specifier.startsWith('.')) packages.push(specifier);
        const target = resolveImport(absolute, specifier);
        if (target) imports.push(target);
        if (target && !typeOnly(node)) valueImports.push(target);
      }
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > longFunctionLines)
          longFunctions.push({ name: functionName(node), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return { file: relative(absolute), lines: text.split('\n').length, imports, valueImports, packages, longFunctions };
  });
}

/**
 * The unit a file belongs to for dependency purposes: `src/<folder>`, a file directly in `src/` (each
 * is a leaf module or a composition root of its own), `workflows/contracts`, or the top-level folder.
 */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : file;
  // The workflows' contracts are a leaf shared by starters, activities and workflows alike.
  if (parts[0] === 'workflows' && parts[1] === 'contracts') return 'workflows/contracts';
  return parts.length > 1 ? parts[0] : '.';
}

/** Every folder (as `folderOf` names them) with the folders it imports; folders that import nothing map to an empty set. */
export function folderGraph(sources: SourceFile[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const s of sources) {
    const from = folderOf(s.file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const target of s.imports) {
      const to = folderOf(target);
      if (to !== from) edges.get(from)!.add(to);
    }
  }
  return edges;
}

/** Folder-level import cycles: every pair of folders that import each other, directly or through others. */
export function folderCycles(sources: SourceFile[]): string[][] {
  return stronglyConnected(folderGraph(sources)).filter((component) => component.length > 1);
}

/** File-level import cycles: files that import each other, directly or through others (type-only imports too). */
export function fileCycles(sources: SourceFile[]): string[][] {
  const edges = new Map(sources.map((s) => [s.file, new Set(s.imports)]));
  return stronglyConnected(edges).filter((component) => component.length > 1);
}

/** Which files make `from` depend on `to`: for messages that say what to move. */
export function importsBetween(sources: SourceFile[], from: string, to: string): string[] {
  return sources.flatMap((s) =>
    folderOf(s.file) === from ? s.imports.filter((t) => folderOf(t) === to).map((t) => `${s.file} → ${t}`) : [],
  );
}

function stronglyConnected(edges: Map<string, Set<string>>): string[][] {
  // Tarjan's algorithm; the graph has a few dozen folders or a few hundred files.
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component.sort());
    }
  };
  for (const v of nodes) if (!indexOf.has(v)) connect(v);
  return components;
}

/** `import type …`, `export type …`, or named imports that are all `type`. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    !!named &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

function resolveImport(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
    base,
  ]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return relative(candidate);
  }
  return null;
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

function listTs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    // Generated files (src/client/schema.gen.ts) are not written by hand: no size rule applies to them.
    return /\.tsx?$/.test(entry.name) && !/\.(d|gen)\.ts$/.test(entry.name) ? [full] : [];
  });
}

function relative(absolute: string): string {
  return path.relative(ROOT, absolute).split(path.sep).join('/');
}
