import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './code-structure';

/** One row of the folder table in docs/architecture.md ("Folders and the way they depend"). */
export interface FolderRow {
  /** As `folderOf` names it: `src/api`, `src/config.ts`, `workflows/contracts`, `temporal`. */
  folder: string;
  /** 9 at the top (processes), 1 for the leaves. */
  layer: number;
  mayImport: string[];
}

export const ARCHITECTURE_DOC = 'docs/architecture.md';
const HEADER = /^\|\s*folder\s*\|\s*layer\s*\|.*\|\s*may import\s*\|$/;

/** The rows of the table whose header is `| folder | layer | … | may import |`; throws when there is none. */
export function readFolderTable(markdown = fs.readFileSync(path.join(ROOT, ARCHITECTURE_DOC), 'utf8')): FolderRow[] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => HEADER.test(line.trim()));
  if (at < 0) throw new Error(`${ARCHITECTURE_DOC} has no "| folder | layer | … | may import |" table`);
  const rows: FolderRow[] = [];
  // The header, then its |---| line, then rows until the first line that is not a table row.
  for (const line of lines.slice(at + 2)) {
    if (!line.trim().startsWith('|')) break;
    const cells = line.trim().slice(1, -1).split('|');
    const folder = /`([^`]+)`/.exec(cells[0] ?? '')?.[1];
    const layer = /^\s*(\d+)\b/.exec(cells[1] ?? '')?.[1];
    if (!folder || !layer) throw new Error(`${ARCHITECTURE_DOC}: cannot read the folder row ${line}`);
    const mayImport = [...(cells[cells.length - 1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ folder, layer: Number(layer), mayImport });
  }
  return rows;
}
