/**
 * What the customer CLI takes from its environment (README "Use it from CI"): the API's address and
 * key, and whether it runs in CI. The one file of src/cli that reads process.env: the CLI runs on the
 * customer's machine and never loads the service's configuration (src/config.ts).
 */
export interface CliEnvironment {
  /** AUDIT_API_URL: the API's base URL, with or without its /v1. */
  apiUrl: string | undefined;
  /** AUDIT_API_KEY: svc_live_… or svc_test_… */
  apiKey: string | undefined;
  /** CI systems set CI (GitHub Actions, GitLab, CircleCI…): no progress line there, even on a terminal. */
  ci: boolean;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  const ci = env.CI;
  return {
    apiUrl: env.AUDIT_API_URL?.trim() || undefined,
    apiKey: env.AUDIT_API_KEY?.trim() || undefined,
    ci: ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false',
  };
}
