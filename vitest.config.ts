import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['protocol/**/*.test.ts', 'main/**/*.test.ts', 'renderer/src/**/*.test.ts', 'bench/**/*.test.ts', 'e2e/fixtures/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // theme.test.ts reads the palettes as text (?raw); other CSS stays out of unit tests.
    css: { include: [/styles\/theme\.css/] },
  },
});
