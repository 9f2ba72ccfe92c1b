import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Test files that replace modules (vi.mock), globals, the environment or the clock run each in a fresh
// worker; the rest share their workers' loaded modules (isolate: false). Loading the core again for every
// file cost about 150 s of a 400 s run on two cores; the files below would leak their mocks into others.
const ISOLATED = [
  'main/electron-main.test.ts',
  'main/host/electron-ipc.test.ts',
  'main/host/web/static.test.ts',
  'main/agent/capabilities/agents/agents.test.ts',
  'main/agent/capabilities/agents/swarm-scheduler.test.ts',
  'main/agent/capabilities/shell/environment.test.ts',
  'main/agent/capabilities/shell/sandboxed-bash.test.ts',
  'main/agent/capabilities/checkpoints/store/seed.test.ts',
  'main/agent/infra/sandbox/probe.test.ts',
  'main/agent/runtime/session/tail-first.test.ts',
  'renderer/src/stores/bind.test.ts',
  'renderer/src/actions/sessions.test.ts',
  'renderer/src/features/conversation/markdown-blocks.test.ts',
];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs: one on a two-core CI machine. Most files wait on real
    // processes (git, shells, servers), so two workers there take about half the time.
    maxWorkers: Math.max(availableParallelism() - 1, 2),
    // CI gets one retry: a test that fails twice still fails the run, and one that passed only on its retry
    // is printed as such (a race to find, not to hide). Locally a failure is reported at once.
    retry: process.env.CI ? 1 : 0,
    reporters: ['default', './scripts/vitest-flaky-reporter.mjs'],
    // theme.test.ts reads the palettes as text (?raw); other CSS stays out of unit tests.
    css: { include: [/styles\/theme\.css/] },
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      // The renderer's components, rendered in a DOM (happy-dom) from store fixtures; `window.deft` is the
      // real bridge over a stand-in core that records what the UI sends (renderer/src/testing/).
      {
        extends: true,
        test: { name: 'components', environment: 'happy-dom', include: ['renderer/src/**/*.test.tsx'], setupFiles: ['renderer/src/testing/setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          isolate: false,
          include: [
            'protocol/**/*.test.ts',
            'main/**/*.test.ts',
            'renderer/src/**/*.test.ts',
            'bench/**/*.test.ts',
            'test-support/**/*.test.ts',
            'docs/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...ISOLATED],
        },
      },
    ],
  },
});
