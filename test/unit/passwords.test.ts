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

  it('orders roles owner > developer > viewer and parses only those', () => {
    assert.equal(roleAtLeast('owner', 'developer'), true);
    assert.equal(roleAtLeast('developer', 'developer'), true);
    assert.equal(roleAtLeast('viewer', 'developer'), false);
    assert.equal(parseRole('admin'), null);
    assert.equal(parseRole('viewer'), 'viewer');
  });
});
