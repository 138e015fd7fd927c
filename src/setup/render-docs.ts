import fs from 'node:fs';
import path from 'node:path';
import { withAnalyzerDoc } from '../analyzers/catalog-doc';

/** `npm run docs`: rewrites the generated analyzer section of README.md. */
const readmePath = path.join(__dirname, '..', '..', 'README.md');
fs.writeFileSync(readmePath, withAnalyzerDoc(fs.readFileSync(readmePath, 'utf8')));
console.log('README.md: analyzer section regenerated');
