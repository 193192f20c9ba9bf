// Typed linting for every TypeScript package. Rules are the typescript-eslint recommended type-checked
// set; nothing is switched off wholesale.
import js from '@eslint/js';
import mpiscope from './scripts/eslint-rules/no-import-cycle.mjs';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tools/**',
      'native-shim/build/**',
      'test/e2e/.out/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The engine's subsystems depend on each other in one direction (server/src/engine/README.md); a cycle,
    // type-only ones included, would let a check reach back into the state that drives it.
    files: ['server/src/engine/**/*.ts'],
    plugins: { mpiscope },
    rules: { 'mpiscope/no-import-cycle': ['error', { root: 'server/src/engine' }] },
  },
  {
    // node:test's describe/it return promises that the runner tracks itself.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
);
