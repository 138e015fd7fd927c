import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { isCommonPassword } from './common-passwords';

/**
 * Passwords are stored as `scrypt$N$r$p$salt$hash` (base64url): scrypt is memory-hard, so each guess
 * costs an attacker 32 MiB of memory as well as time. The parameters travel with the hash, so they
 * can be raised later without invalidating stored passwords.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MIN_PASSWORD_LENGTH = 10;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// NIST SP 800-63B 3.1.1.2: no composition rules, but passwords that are common, repetitive or
// sequential are refused. Sequences are read forwards and backwards, along these rows.
const SEQUENCES = [
  'abcdefghijklmnopqrstuvwxyz',
  '0123456789',
  'qwertyuiopasdfghjklzxcvbnm',
  'qwertzuiop',
  'azertyuiop',
];
const MAX_REPEATED_UNIT = 4;
// Control characters cannot be typed, and a form that sends one is refused before it gets here.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Why a new password is refused (in words shown to the user), or null when it is acceptable. */
export function passwordProblem(password: string, email?: string): string | null {
  // Characters as people count them (code points), not UTF-16 units.
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > 200) return 'Choose a password of at most 200 characters.';
  if (CONTROL.test(password)) return 'Choose a password without control characters.';
  if (password.trim() === '') return 'Choose a password that is not only spaces or other blanks.';
  if (isCommonPassword(password.trim()) || (email && password.trim().toLowerCase() === email.toLowerCase()))
    return 'This password is too easy to guess: it is on a list of common passwords. Choose another one.';
  if (isRepetitive(password) || isSequential(password))
    return 'This password is too easy to guess: it repeats one character or a short pattern, or runs along the keyboard or the alphabet (like "abcdef" or "654321"). Choose another one.';
  return null;
}

/** One short unit over and over ("aaaaaaaaaa", "abababab", "abcabcabca"), whatever the case. */
function isRepetitive(password: string): boolean {
  const chars = [...password.toLowerCase()];
  for (let unit = 1; unit <= MAX_REPEATED_UNIT; unit++) {
    if (chars.every((char, i) => char === chars[i % unit])) return true;
  }
  return false;
}

/** A run along the alphabet, the digits or a keyboard row ("abcdefghij", "0987654321", "qwertyuiop"). */
function isSequential(password: string): boolean {
  const lower = password.toLowerCase();
  return SEQUENCES.some((row) => {
    const forwards = row.repeat(3);
    const backwards = [...forwards].reverse().join('');
    return forwards.includes(lower) || backwards.includes(lower);
  });
}

let decoy: Promise<string> | null = null;

/** A hash of a random password no one knows: checking an unknown e-mail against it costs as much as a real check. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}
