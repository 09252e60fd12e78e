// Type-aware lint: promise misuse and non-exhaustive switches are errors (CONTRIBUTING.md, "Code").
// Module boundaries: Nx's project graph and the tags in each project.json (docs/design/architecture.md, "Layout").
import { createRequire } from 'node:module';
import nx from '@nx/eslint-plugin';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// The boundary rule reads Nx's cached project graph and skips itself, with only a warning, when there
// is none: build the graph first (about a second), so that a plain `eslint` run checks against the
// projects and imports as they are now.
// Built as on a workstation even where CI is set (CI sets CI=true): with it, the graph this builds
// left the rule reporting nothing at all (test/ops/nx-graph.int-spec.ts caught it under .ci/run).
delete process.env.CI;
const { createProjectGraphAsync } = createRequire(import.meta.url)('nx/src/devkit-exports');
await createProjectGraphAsync({ exitOnError: false });

const typeAwareRules = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
  '@typescript-eslint/no-require-imports': 'error',
  '@typescript-eslint/no-unsafe-function-type': 'error',
  '@typescript-eslint/prefer-promise-reject-errors': 'off',
};

/**
 * Who may import whom, by the tags of each project.json:
 * - `type:lib` imports only libs (a lib never knows an app);
 * - `type:app` imports only libs; apps talk to each other through the messages of `libs/contracts`,
 *   and Nx refuses an import of an app anyway ("Imports of apps are forbidden"): the composers below
 *   are the one exception;
 * - `platform:browser` (the dashboard) imports only libs tagged `platform:any` (no Node built-ins,
 *   no Nest): it runs in a browser;
 * - `scope:testing` (libs/testing) only from test code.
 */
const depConstraints = [
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'platform:browser', onlyDependOnLibsWithTags: ['platform:any'] },
];

/** Production code never imports the test kit; test code (specs, and `test/` folders, which the build leaves out) may. */
const productionConstraints = [...depConstraints, { sourceTag: '*', notDependOnLibsWithTags: ['scope:testing'] }];
const TEST_CODE = ['**/*.spec.ts', '**/*.int-spec.ts', '**/test/**'];

/**
 * The rule's options for a set of files, each block twice: all its files, then its files that are not test code, with
 * the production constraints (a later block replaces the rule's options of an earlier one).
 */
const boundaryBlocks = [
  // Boundaries everywhere in apps/ and libs/ (test/ and bench/, the root project, drive the apps from outside).
  { files: ['apps/**/*.ts', 'apps/**/*.tsx', 'apps/**/*.mts', 'libs/**/*.ts'], options: {} },
  // standalone and the CLI compose the four services' Nest modules in one process (the CLI also
  // starts standalone): the only places that may import an app, and only by its entry point.
  {
    files: ['apps/standalone/**/*.ts', 'apps/cli/**/*.ts'],
    options: { allow: ['@gen/gateway', '@gen/billing', '@gen/generation', '@gen/webhooks', '@gen/standalone'] },
  },
  // webhook-signature is also a receiver library for customers: its specs and examples import it by
  // its public name, as a customer's code would.
  { files: ['libs/webhook-signature/**/*.ts'], options: { allowCircularSelfDependency: true } },
].flatMap(({ files, options }) => [
  { files, plugins: { '@nx': nx }, rules: { '@nx/enforce-module-boundaries': ['error', { depConstraints, ...options }] } },
  {
    files,
    ignores: TEST_CODE,
    plugins: { '@nx': nx },
    rules: { '@nx/enforce-module-boundaries': ['error', { depConstraints: productionConstraints, ...options }] },
  },
]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tmp/**', '.data/**', 'coverage/**', 'test-artifacts/**', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    ignores: ['apps/dashboard/**'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: typeAwareRules,
  },
  // The dashboard (browser code, its own tsconfig): the same rules plus the rules of React hooks.
  {
    files: ['apps/dashboard/**/*.ts', 'apps/dashboard/**/*.tsx', 'apps/dashboard/**/*.mts'],
    extends: [tseslint.configs.base, reactHooks.configs.flat.recommended],
    languageOptions: {
      parserOptions: { project: './apps/dashboard/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: typeAwareRules,
  },
  ...boundaryBlocks,
);
