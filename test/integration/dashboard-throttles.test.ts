import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { LOGIN_REFUSED } from '../../src/dashboard/pages/login';
import { LOGIN_THROTTLE } from '../../src/people/login-throttle';
import { SIGNUP_THROTTLE } from '../../src/people/signup-throttle';
import { signUpUser } from '../../src/people/users';
import { DashboardClient, pageMessage, uniqueClientAddress } from '../support/dashboard-client';
import { getStack, startExtraApi, stopExtraApi } from '../support/stack';

const PASSWORD = 'violet-harbour-lantern-42';
let counter = 0;
const email = (label: string) => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;

/**
 * Throttles counted per client address, under real concurrency: an API of its own that trusts
 * X-Forwarded-For, so each test has an address of its own and the shared one is never throttled.
 */
describe('dashboard: log-in and sign-up throttles under concurrency', function () {
  this.timeout(120_000);
  let api: RunningApi;
  before(async () => {
    const { config } = await getStack();
    api = await startExtraApi({ config: { ...config, trustProxy: true, signupLimit: SIGNUP_THROTTLE.perIp } });
  });
  after(() => stopExtraApi(api));

  /** Counts password checks (the user lookup that precedes each scrypt) for these e-mails. */
  async function countPasswordChecks(emails: Set<string>) {
    const { db } = await getStack();
    let count = 0;
    const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
      if (query.sql.includes('password_hash') && query.bindings?.some((b) => emails.has(b as string))) count++;
    };
    db.on('query', onQuery);
    return { count: () => count, stop: () => db.removeListener('query', onQuery) };
  }

  async function loginClient(address: string): Promise<DashboardClient> {
    const client = new DashboardClient(api.url, address);
    await client.open('/login');
    return client;
  }

  it('evaluates exactly the allowed 5 of 100 concurrent guesses at one account, then refuses the right password', async () => {
    const { db, clock } = await getStack();
    const target = email('guessed');
    await signUpUser(db, { email: target, password: PASSWORD, now: clock.now() });
    const address = uniqueClientAddress();
    const checks = await countPasswordChecks(new Set([target]));
    try {
      const clients = await Promise.all(Array.from({ length: 100 }, () => loginClient(address)));
      const answers = await Promise.all(
        clients.map((client, i) => client.post('/login', { email: target, password: `wrong-guess-${i}` })),
      );
      assert.equal(checks.count(), LOGIN_THROTTLE.perEmail, 'password checks run');
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
      assert.deepEqual(new Set(answers.map((a) => pageMessage(a.text))), new Set([LOGIN_REFUSED]), 'one message');

      const right = await (await loginClient(address)).post('/login', { email: target, password: PASSWORD });
      assert.equal(right.status, 401, 'the right password is refused while throttled');
      assert.equal(pageMessage(right.text), LOGIN_REFUSED);
      const elsewhere = await loginClient(uniqueClientAddress());
      assert.equal((await elsewhere.post('/login', { email: target, password: PASSWORD })).status, 401, 'per e-mail');
      assert.equal(checks.count(), LOGIN_THROTTLE.perEmail, 'throttled attempts are not evaluated');
    } finally {
      checks.stop();
    }
  });

  it('evaluates exactly the allowed 20 of 100 concurrent log-ins to different e-mails from one address', async () => {
    const address = uniqueClientAddress();
    const targets = Array.from({ length: 100 }, (_, i) => email(`spray-${i}`));
    const checks = await countPasswordChecks(new Set(targets));
    try {
      const clients = await Promise.all(targets.map(() => loginClient(address)));
      const answers = await Promise.all(
        clients.map((client, i) => client.post('/login', { email: targets[i], password: PASSWORD })),
      );
      assert.equal(checks.count(), LOGIN_THROTTLE.perIp);
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
    } finally {
      checks.stop();
    }
  });

  it('does not count a successful log-in, and a success does not wipe earlier failures', async () => {
    const { db, clock } = await getStack();
    const target = email('regular');
    await signUpUser(db, { email: target, password: PASSWORD, now: clock.now() });
    const address = uniqueClientAddress();
    for (let i = 0; i < LOGIN_THROTTLE.perEmail + 2; i++) {
      const client = await loginClient(address);
      const answer = await client.post('/login', { email: target, password: PASSWORD });
      assert.equal(answer.status, 302, `log-in ${i + 1}`);
      assert.ok(client.signedIn);
    }
    for (let i = 0; i < LOGIN_THROTTLE.perEmail - 1; i++)
      assert.equal(
        (await (await loginClient(address)).post('/login', { email: target, password: 'nope' })).status,
        401,
      );
    assert.equal(
      (await (await loginClient(address)).post('/login', { email: target, password: PASSWORD })).status,
      302,
    );
    assert.equal((await (await loginClient(address)).post('/login', { email: target, password: 'nope' })).status, 401);
    const refused = await (await loginClient(address)).post('/login', { email: target, password: PASSWORD });
    assert.equal(refused.status, 401, 'the fifth failure throttles, the success in between notwithstanding');
  });

  it('throttles the current-password check of /password like a log-in', async () => {
    const target = email('changer');
    const client = new DashboardClient(api.url, uniqueClientAddress());
    await client.open('/signup');
    assert.equal((await client.post('/signup', { email: target, password: PASSWORD })).status, 302);
    await client.open('/password');
    for (let i = 0; i < LOGIN_THROTTLE.perEmail; i++) {
      const wrong = await client.post('/password', { current: `wrong-${i}`, new: 'a-new-secret-phrase-7' });
      assert.equal(wrong.status, 422);
    }
    const right = await client.post('/password', { current: PASSWORD, new: 'a-new-secret-phrase-7' });
    assert.equal(right.status, 422, 'throttled: the right current password is refused too');
    assert.match(pageMessage(right.text), /current password is not right/);
  });

  it(`signs up at most ${SIGNUP_THROTTLE.perIp} accounts an hour per address; throttled answers reveal nothing`, async () => {
    const { db } = await getStack();
    const address = uniqueClientAddress();
    const signUp = async (address_: string, target: string) => {
      const client = new DashboardClient(api.url, address_);
      await client.open('/signup');
      return { client, answer: await client.post('/signup', { email: target, password: PASSWORD }) };
    };
    const existing = email('existing');
    const first = await signUp(address, existing);
    assert.equal(first.answer.status, 302, 'a new user lands signed in');
    assert.equal(first.answer.location, '/');
    assert.equal((await first.client.get('/')).status, 200);

    const taken = await signUp(address, existing);
    assert.equal(taken.answer.status, 422);
    assert.match(pageMessage(taken.answer.text), /already has an account/, 'under the limit, as before');
    for (let i = 2; i < SIGNUP_THROTTLE.perIp; i++)
      assert.equal((await signUp(address, email('more'))).answer.status, 302);

    const fresh = email('fresh');
    const throttledTaken = await signUp(address, existing);
    const throttledFresh = await signUp(address, fresh);
    assert.equal(throttledTaken.answer.status, 429);
    assert.equal(throttledFresh.answer.status, 429);
    assert.equal(pageMessage(throttledTaken.answer.text), pageMessage(throttledFresh.answer.text));
    assert.match(pageMessage(throttledFresh.answer.text), /Too many sign-ups/);
    assert.doesNotMatch(throttledTaken.answer.text, /already has an account/);
    assert.equal(await db('users').where({ email: fresh }).first(), undefined, 'nothing stored');
    assert.equal(throttledFresh.client.signedIn, false);

    const other = await signUp(uniqueClientAddress(), fresh);
    assert.equal(other.answer.status, 302, 'other addresses are not affected');
  });

  it(`creates exactly ${SIGNUP_THROTTLE.perIp} of 30 concurrent sign-ups from one address`, async () => {
    const { db } = await getStack();
    const address = uniqueClientAddress();
    const targets = Array.from({ length: 30 }, (_, i) => email(`burst-${i}`));
    const clients = await Promise.all(
      targets.map(async () => {
        const client = new DashboardClient(api.url, address);
        await client.open('/signup');
        return client;
      }),
    );
    const answers = await Promise.all(
      clients.map((client, i) => client.post('/signup', { email: targets[i], password: PASSWORD })),
    );
    assert.equal(answers.filter((a) => a.status === 302).length, SIGNUP_THROTTLE.perIp);
    assert.equal(answers.filter((a) => a.status === 429).length, 30 - SIGNUP_THROTTLE.perIp);
    const [{ n }] = await db('users').whereIn('email', targets).count('* as n');
    assert.equal(Number(n), SIGNUP_THROTTLE.perIp);
    const [{ m }] = await db('memberships as ms')
      .join('users as u', 'u.id', 'ms.user_id')
      .whereIn('u.email', targets)
      .count('* as m');
    assert.equal(Number(m), SIGNUP_THROTTLE.perIp, 'every created user has its workspace');
  });
});
