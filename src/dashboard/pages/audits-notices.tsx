/** Why an action was refused, in plain words, with the request id support asks for. */
export function ProblemNotice(props: { message: string; requestId?: string }) {
  return (
    <div class="notice notice-error" role="alert">
      <p>{props.message}</p>
      {props.requestId ? (
        <p class="request-id">
          Request id: <code>{props.requestId}</code>
        </p>
      ) : null}
    </div>
  );
}

/** What a free account sees where a paid feature would be: what it is and which plan unlocks it. */
export function UpgradeNotice(props: { feature: string; tier: string; plansHref: string }) {
  return (
    <div class="notice notice-upgrade" role="status">
      <p>
        {props.feature} are available on the {props.tier} plan and higher. <a href={props.plansHref}>See the plans</a>{' '}
        to find out what each plan unlocks.
      </p>
    </div>
  );
}
