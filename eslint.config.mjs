// Type-aware lint: promise misuse and non-exhaustive switches are errors (STYLE.md, rule 11).
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

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
);
