// Guard rails run by `npm test` (eslint --config test/lint/eslint.config.mjs): type-aware rules that
// catch what the type check does not (forgotten awaits), and the workflow sandbox's import rules.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'bench/out/**', 'test/fixtures/**', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // A plain Connection closed while a call is being retried throws from the retry's timer and ends the
      // process; temporal/closable-connection.ts is the one way to make a client Connection.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Connection'][callee.property.name=/^(lazy|connect)$/]",
          message: 'Use ClosableConnection.open (temporal/closable-connection.ts): it can be closed mid-retry.',
        },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node modules, no service code with
    // I/O. It may use the SDK, its own contracts, activity *types* and the pure audit schema types.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Node modules do not exist in the workflow sandbox; do I/O in an activity.' },
            {
              regex: '^(fs|path|os|crypto|http|https|net|tls|dns|child_process|worker_threads|stream|events|util|url|zlib)$',
              message: 'Node modules do not exist in the workflow sandbox; do I/O in an activity.',
            },
            { regex: '(^|/)src/(?!schemas/audit$)', message: 'Workflows import only workflows/contracts and pure schema types.' },
            { group: ['**/activities/**'], allowTypeImports: true, message: 'Workflows import activities by type only (proxyActivities<typeof …>).' },
            { group: ['**/temporal/**', '**/processes/**'], message: 'Workflows import only workflows/contracts and pure schema types.' },
          ],
        },
      ],
    },
  },
);
