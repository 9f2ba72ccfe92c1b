import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './scripts/chromium.mjs';
import { electronBinary } from './scripts/electron-binary.mjs';

const chromium = findChromium();
const electron = electronBinary();
// Workers load this file too; say it once, from the runner.
if (!electron && process.env.TEST_WORKER_INDEX === undefined) {
  // Printed on every run so the gap is visible: the Electron project exists only where its binary does.
  console.log(
    'e2e: Electron specs not run — the Electron binary is not installed here (its download is blocked); the web host specs cover the same UI in Chromium.',
  );
}

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  // As in vitest: one retry on CI, reported as "flaky" in the list, never locally.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    viewport: { width: 1280, height: 800 },
  },
  projects: [
    {
      name: 'web',
      use: {
        browserName: 'chromium',
        launchOptions: { ...(chromium ? { executablePath: chromium } : {}), args: CHROMIUM_ARGS },
      },
    },
    ...(electron ? [{ name: 'electron', testIgnore: '**/web-host.spec.ts', use: { deftHost: 'electron' } as Record<string, unknown> }] : []),
  ],
});
