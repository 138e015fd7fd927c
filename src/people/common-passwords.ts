import fs from 'node:fs';
import path from 'node:path';

/**
 * Passwords that appear on every list of leaked passwords (common-passwords.txt, one a line).
 * A password is refused when it is one of them, or one of them with digits and symbols added at
 * the end ("password2024!"), the variations guessing tools try first.
 */
let words: Set<string> | null = null;

function commonWords(): Set<string> {
  words ??= new Set(
    fs
      .readFileSync(path.join(__dirname, 'common-passwords.txt'), 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter(Boolean),
  );
  return words;
}

export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  const stem = lower.replace(/[\d!@#$%^&*.?_-]+$/, '');
  return commonWords().has(lower) || (stem.length > 0 && commonWords().has(stem));
}
