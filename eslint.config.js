import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A relative import of a renderer folder (./x, ../x, ../../x …), not a folder of that name elsewhere (protocol/helpers/bridge).
const up = (names) => `^(\\./|(\\.\\./)+)(${names})(/|$)`;

/** Renderer-wide: the core only through window.deft, and only types from the zod schemas. */
const rendererImports = [
  { group: ['**/main/**', 'electron', 'node:*'], message: 'The renderer talks to the core only through window.deft.' },
  { regex: '^#(contract|infra|runtime)(/|$)', message: 'The renderer talks to the core only through window.deft.' },
  {
    regex: '(^|/|#)protocol(/(index|schemas(/[^/]+)?))?$',
    allowTypeImports: true,
    message:
      'Only types from the zod schemas: runtime imports would pull zod into the renderer. Use the zod-free protocol/helpers/ (bridge, names, limits, units, paging, file-text, prices, terminal-text).',
  },
];

/** protocol/helpers/ is what the renderer may import as values: no zod, and the schemas for their types only. */
const zodFreeImports = [
  { group: ['zod', 'zod/*'], message: 'protocol/helpers/ stays zod-free (the renderer imports it): put schemas in protocol/schemas/.' },
  {
    regex: '(^|/|#)(schemas/[^/]+|index|protocol|\\.\\.)$',
    allowTypeImports: true,
    message: 'protocol/helpers/ may use the schemas for their types only: a value import would pull zod into the renderer.',
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
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.cjs', 'scripts/*.mjs', 'bin/*.mjs', '.ci/*.mjs', 'test-support/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
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
    files: ['scripts/**/*.mjs', 'bin/**/*.mjs', '*.js', '*.cjs', '.ci/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // Playwright fixtures must destructure their (possibly empty) dependencies.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['protocol/helpers/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: zodFreeImports }] },
  },
  {
    // A value from the protocol's barrel evaluates every schema module: a cold CLI run would build the command and
    // event schemas it never uses. The core and the CLI import values from the module that defines them.
    files: ['main/agent/**/*.ts', 'main/host/cli/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '#protocol',
              allowTypeImports: true,
              message: "Import values from their module ('#protocol/schemas/…', '#protocol/helpers/…'); '#protocol' builds every schema at start.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['main/agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'The agent core must run in plain Node: no electron imports.' }] }] },
  },
  {
    // What a tool touches goes through the session's Environment (contract/environment.ts), never this machine's
    // file system or processes directly, so a remote workspace behaves like a local one. Enforced where the layer is
    // in place; the listed files keep the session's own files (on this machine): attachments, command logs and notes, scheduled prompts.
    files: [
      'main/agent/capabilities/files/**/*.ts',
      'main/agent/capabilities/shell/**/*.ts',
      'main/agent/runtime/prompt/**/*.ts',
      'main/agent/infra/policies/path-guard.ts',
      'main/agent/infra/policies/sensitive.ts',
    ],
    ignores: [
      '**/*.test.ts',
      'main/agent/capabilities/files/attachments.ts',
      'main/agent/capabilities/shell/shell-job.ts',
      'main/agent/capabilities/shell/process-tasks.ts',
      'main/agent/capabilities/shell/cron/scheduler.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'The agent core must run in plain Node: no electron imports.' },
            ...['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'execa'].map((name) => ({
              name,
              message:
                "Files and processes go through the session's Environment (ToolEnv.environment / CoreContext.environment); only infra/environment/ backends use node:fs, child_process and execa.",
            })),
          ],
        },
      ],
    },
  },
  {
    // The layers of the agent core (README, "Map of the code"). Tests and test support may reach across
    // them to build a whole core; shipped code may not. Import cycles are checked by dependency-cruiser.
    files: ['main/**/*.ts', 'preload/**/*.ts', 'protocol/**/*.ts'],
    ignores: ['**/*.test.ts', 'test-support/**'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: 'tsconfig.depcruise.json' }, node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
      'boundaries/elements': [
        { type: 'contract', pattern: 'main/agent/contract' },
        { type: 'runtime', pattern: 'main/agent/runtime' },
        { type: 'infra', pattern: 'main/agent/infra' },
        { type: 'capability', pattern: 'main/agent/capabilities/*', capture: ['name'] },
        { type: 'test-support', pattern: 'test-support' },
        { type: 'host', pattern: 'main/host' },
        { type: 'protocol', pattern: 'protocol' },
        { type: 'preload', pattern: 'preload' },
        { type: 'renderer', pattern: 'renderer' },
      ],
      'boundaries/files': [{ category: 'capability-list', pattern: 'main/agent/capabilities.ts' }],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            {
              from: { element: { type: 'contract' } },
              disallow: { to: { element: { types: { anyOf: ['runtime', 'infra', 'capability', 'host', 'test-support'] } } } },
              message: 'contract/ is what capabilities code against: it imports only protocol/.',
            },
            {
              from: { element: { type: 'capability' } },
              disallow: { to: { element: { types: { anyOf: ['runtime', 'host', 'test-support'] } } } },
              message: 'A capability imports contract/ and infra/ only, never runtime/: the runtime receives capabilities, not the other way round.',
            },
            {
              from: { element: { type: 'capability' } },
              disallow: { to: { element: { type: 'capability', captured: { name: '!{{ from.element.captured.name }}' } } } },
              message: 'A capability never imports another capability: move what both need into contract/ or infra/.',
            },
            {
              from: { element: { type: 'runtime' } },
              disallow: { to: { element: { types: { anyOf: ['capability', 'host', 'test-support'] } } } },
              message: 'runtime/ never imports a capability: the core receives its capabilities from its host.',
            },
            {
              from: { element: { type: 'infra' } },
              disallow: { to: { element: { types: { anyOf: ['runtime', 'capability', 'host', 'test-support'] } } } },
              message: 'infra/ sits under the runtime and the capabilities: it imports only contract/, infra/ and protocol/.',
            },
            {
              from: { element: { types: { anyOf: ['contract', 'runtime', 'infra', 'capability'] } } },
              disallow: { to: { file: { categories: 'capability-list' } } },
              message: 'The default capability list is for hosts (and tests) only.',
            },
            {
              from: { element: { type: 'protocol' } },
              disallow: {
                to: { element: { types: { anyOf: ['contract', 'runtime', 'infra', 'capability', 'host', 'test-support', 'preload', 'renderer'] } } },
              },
              message: 'protocol/ is pure: it imports nothing of the app.',
            },
            {
              from: { element: { type: 'preload' } },
              disallow: { to: { element: { types: { anyOf: ['contract', 'runtime', 'infra', 'capability', 'host', 'test-support', 'renderer'] } } } },
              message: 'The preload script builds window.deft from protocol/ only.',
            },
          ],
        },
      ],
    },
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
        {
          patterns: [
            ...rendererImports,
            forbid('features|actions|stores|bridge|App', 'Shared components import no feature, store or command: they take what they show as props.'),
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/src/features/**/*.{ts,tsx}', 'renderer/src/App.tsx'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...rendererImports, noBridge] }] },
  },
);
