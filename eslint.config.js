import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A relative import of a renderer folder (./x, ../x, ../../x …), not a folder of that name elsewhere (protocol/bridge).
const up = (names) => `^(\\./|(\\.\\./)+)(${names})(/|$)`;

/** Renderer-wide: the core only through window.deft, and only types from the zod schemas. */
const rendererImports = [
  { group: ['**/main/**', 'electron', 'node:*'], message: 'The renderer talks to the core only through window.deft.' },
  {
    regex: '(^|/)protocol(/(index|commands|events|display|session|settings|skills|tasks|control))?$',
    allowTypeImports: true,
    message: 'Only types from the zod schemas: runtime imports would pull zod into the renderer. Use protocol/bridge, names, limits, units or terminal-text.',
  },
];

const forbid = (names, message) => ({ regex: up(names), message });
const noViews = forbid('features|components|App', 'Stores and actions never import views: a view reads a store through a selector.');
const noActions = forbid('actions', 'Stores hold state; commands live in actions/, which update the stores.');
const noBridge = forbid('bridge', 'Commands go through actions/ (and events through stores/bind.ts), not straight to the bridge.');

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs', 'bin/*.mjs', '.ci/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      'no-restricted-syntax': ['error', { selector: 'CallExpression[callee.property.name="only"]', message: 'Focused tests (.only) must not be committed.' }],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'bin/**/*.mjs', '*.js', '.ci/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Playwright fixtures must destructure their (possibly empty) dependencies.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['main/agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'The agent core must run in plain Node: no electron imports.' }] }] },
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: rendererImports }],
    },
  },
  // The renderer's layers, each importing only those below it: components, stores (state, fed by
  // events), actions (commands through the bridge), features (views), App. A later block replaces the
  // rule's options, so each one repeats the renderer-wide patterns.
  {
    files: ['renderer/src/stores/**/*.ts'],
    ignores: ['renderer/src/stores/bind.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...rendererImports, noViews, noActions, noBridge] }] },
  },
  {
    // The one binding module: bridge events into the stores.
    files: ['renderer/src/stores/bind.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...rendererImports, noViews, noActions] }] },
  },
  {
    files: ['renderer/src/actions/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...rendererImports, noViews] }] },
  },
  {
    files: ['renderer/src/components/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [...rendererImports, forbid('features|actions|stores|bridge|App', 'Shared components import no feature, store or command: they take what they show as props.')] },
      ],
    },
  },
  {
    files: ['renderer/src/features/**/*.{ts,tsx}', 'renderer/src/App.tsx'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...rendererImports, noBridge] }] },
  },
);
