/**
 * What a visitor sees instead of the report: the password form of a protected link, and the one
 * answer for every link that opens nothing (expired, revoked, unknown alike).
 */

export function PasswordForm(props: {
  action: string;
  csrf: string;
  problem?: 'wrong' | 'throttled';
  retryAfterSeconds?: number;
}) {
  return (
    <main id="main" class="share-main narrow">
      <h1>This report is protected</h1>
      <p>Enter the password you were given with the link.</p>
      {props.problem === 'wrong' ? (
        <p class="error" role="alert">
          That password is not right. Check it and try again.
        </p>
      ) : null}
      {props.problem === 'throttled' ? (
        <p class="error" role="alert">
          Too many wrong passwords for this link. Try again in {minutes(props.retryAfterSeconds ?? 60)}.
        </p>
      ) : null}
      <form method="post" action={props.action} class="stack share-unlock">
        <input type="hidden" name="_csrf" value={props.csrf} />
        <div>
          <label for="share-password">Password</label>
          <input id="share-password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <div>
          <button type="submit">View report</button>
        </div>
      </form>
    </main>
  );
}

const GONE =
  'It may have expired or been revoked, or it was copied incompletely. Ask whoever sent it to you for a new one.';

/** The page of a link that opens nothing (expired, revoked or unknown alike), or of a request that failed. */
export function LinkGone(props: { title: string; message?: string }) {
  return (
    <main id="main" class="share-main narrow">
      <h1>{props.title}</h1>
      <p>{props.message ?? GONE}</p>
    </main>
  );
}

function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? '1 minute' : `${m} minutes`;
}
