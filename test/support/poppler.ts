import { ensureDebianProgram } from '../../src/setup/debian-package';

/** The report tests render pages with poppler's pdftoppm, installed from Debian's packages when missing. */
export function ensurePdftoppm(log: (line: string) => void): void {
  ensureDebianProgram(
    {
      present: { command: 'pdftoppm', args: ['-v'] },
      pkg: 'poppler-utils',
      without: 'the PNG rendering test will fail without it',
    },
    log,
  );
}
