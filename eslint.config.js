// Lint rules for strict TypeScript. Type-aware rules run on src/, bench/ and test/ through
// the TypeScript project service, so each file is checked with the tsconfig that covers it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // examples/ are projects of their own, run with their own runners by npm run test:package.
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', 'docs/', 'examples/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Formatting is prettier's: turn off the rules that disagree with it.
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an as-const object, not enum.' },
      ],
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      // Variables initialised for definite assignment and overwritten on every path are fine.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Tests, benchmarks and the CLI print to the terminal.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/cli/**/*.ts', '*.js', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // node:test's describe/it return promises the runner itself awaits.
    files: ['test/**/*.ts'],
    // Corpora spell out doubles past 2^53 on purpose.
    rules: { '@typescript-eslint/no-floating-promises': 'off', 'no-loss-of-precision': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain JavaScript run by Node (scripts/, jest-preset.js, examples/).
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', URL: 'readonly', console: 'readonly' },
    },
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly' } },
  },
);
