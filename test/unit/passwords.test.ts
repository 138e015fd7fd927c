import assert from 'node:assert/strict';
import { isCommonPassword } from '../../src/people/common-passwords';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/people/passwords';
import { parseRole, roleAtLeast } from '../../src/people/roles';

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the right password', async () => {
    const first = await hashPassword('violet-harbour-lantern-42');
    const second = await hashPassword('violet-harbour-lantern-42');
    assert.match(first, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(first, second, 'each hash has its own salt');
    assert.equal(await verifyPassword('violet-harbour-lantern-42', first), true);
    assert.equal(await verifyPassword('violet-harbour-lantern-43', first), false);
    assert.equal(await verifyPassword('violet-harbour-lantern-42', 'md5$abc'), false);
  });

  it('refuses short passwords, common ones (with digits or symbols added) and the e-mail itself', () => {
    assert.match(passwordProblem('short1!') ?? '', /at least 10 characters/);
    assert.match(passwordProblem('qwertyuiop') ?? '', /common passwords/);
    assert.match(passwordProblem('Password2024!') ?? '', /common passwords/);
    assert.match(passwordProblem('me@example.com', 'ME@example.com') ?? '', /common passwords/);
    assert.equal(passwordProblem('violet-harbour-lantern-42'), null);
    assert.equal(isCommonPassword('iloveyou123'), true);
    assert.equal(isCommonPassword('iloveyou-but-longer'), false);
  });

  it('refuses blank, repetitive and sequential passwords (NIST SP 800-63B), with no composition rule', () => {
    const blanks = /not only spaces or other blanks/;
    const trivial = /repeats one character or a short pattern, or runs along/;
    assert.match(passwordProblem(' '.repeat(10)) ?? '', blanks);
    assert.match(passwordProblem('\t \u00a0\u3000 \t    ') ?? '', blanks);
    assert.match(passwordProblem('a'.repeat(10)) ?? '', trivial);
    assert.match(passwordProblem('7'.repeat(30)) ?? '', trivial);
    assert.match(passwordProblem('é'.repeat(10)) ?? '', trivial);
    assert.match(passwordProblem('xyxyxyxyxy') ?? '', trivial);
    assert.match(passwordProblem('Ab1!Ab1!Ab1!') ?? '', trivial, 'a short pattern repeated, whatever its classes');
    assert.match(passwordProblem('klmnopqrstu') ?? '', trivial);
    assert.match(passwordProblem('5432109876') ?? '', trivial, 'backwards, round the digits');
    assert.match(passwordProblem('ASDFGHJKLZX') ?? '', trivial, 'along the keyboard, either case');
    assert.match(passwordProblem('password   ') ?? '', /common passwords/, 'a common one with blanks added');
    assert.match(passwordProblem('\u0000'.repeat(12)) ?? '', /without control characters/);
    assert.match(passwordProblem('🔒'.repeat(9)) ?? '', /at least 10 characters/, 'characters, not UTF-16 units');

    // No composition rule: one class only, or spaces inside, is fine when it is not trivial.
    assert.equal(passwordProblem('correct horse battery staple'), null);
    assert.equal(passwordProblem('lanternharbourviolet'), null);
    assert.equal(passwordProblem('8203917465'), null);
    assert.equal(passwordProblem('🔒🔑🗝️🔐🔓🚪🏠🌙⭐🌊'), null);
    assert.equal(passwordProblem('abcdefgh-quiet-river'), null, 'a run inside a longer password is fine');
  });

  it('orders roles owner > developer > viewer and parses only those', () => {
    assert.equal(roleAtLeast('owner', 'developer'), true);
    assert.equal(roleAtLeast('developer', 'developer'), true);
    assert.equal(roleAtLeast('viewer', 'developer'), false);
    assert.equal(parseRole('admin'), null);
    assert.equal(parseRole('viewer'), 'viewer');
  });
});
