import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { axeViolations } from './fixtures/axe';
import { expect, test } from './fixtures/deft';
import { screens } from './fixtures/screens';

// Every main screen (fixtures/screens.ts) in both themes, at 1280×800 and 900×700 (and 1920×1080 when collecting screenshots): axe finds no
// serious or critical violation, nothing overflows the window sideways, and a screenshot of each is
// attached to the report (and written to $DEFT_SCREENS_DIR when set, for looking at them).
// The theme follows the system here, so each run also checks that it does.

// 1920×1080 only when the screenshots are being collected to look at (DEFT_SCREENS_DIR): it keeps CI's run short.
const SIZES = [[1280, 800], [900, 700], ...(process.env.DEFT_SCREENS_DIR ? ([[1920, 1080]] as const) : [])] as const;

for (const screen of screens) {
  test(`accessibility and look: ${screen.name}, dark and light`, async ({ deft, mock, workspace }, testInfo) => {
    // axe measures every colour on the page: slow on a busy machine, so each state of the screen gets time.
    test.setTimeout(180_000 * (1 + (screen.views?.length ?? 0)));
    const { page } = deft;
    // Set up once in the dark theme; each state is then looked at in dark and in light (the theme follows
    // the system, so switching the emulated scheme switches the window's theme live).
    // Reduced motion: no transitions, so a theme switch's colours are final when axe measures them (under load a
    // 120 ms background transition was seen half-way: white text on the dark theme's accent).
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await screen.setup({ page, mock, workspace });
    for (const view of [null, ...(screen.views ?? [])]) {
      if (view) {
        // Each state is reached at the first size, as a person would, then looked at in every size.
        await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] });
        await view.show(page);
      }
      for (const theme of ['dark', 'light'] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
        await checkEverySize(page, theme, view ? `${screen.name}-${view.name}` : screen.name, testInfo);
      }
      await page.emulateMedia({ colorScheme: 'dark' });
    }
  });
}

async function checkEverySize(page: Page, theme: string, screenName: string, testInfo: TestInfo): Promise<void> {
  // Light is looked at after dark, at the size dark ended on: start there and come back to the first size last.
  const sizes = theme === 'dark' ? SIZES : [...SIZES].reverse();
  for (const [width, height] of sizes) {
    await page.setViewportSize({ width, height });
    // Let layout and transitions settle so colours and sizes are measured as shown.
    await page.waitForTimeout(300);
    expect(
      await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth),
      `no sideways overflow at ${width}×${height}`,
    ).toBeLessThanOrEqual(0);
    // CI keeps only a failure's screenshot (playwright.config.ts); the rest are for people looking at the screens.
    if (!process.env.CI || process.env.DEFT_SCREENS_DIR) {
      const shot = await page.screenshot({ animations: 'disabled' });
      const name = `${screenName}-${theme}-${width}x${height}.png`;
      await testInfo.attach(name, { body: shot, contentType: 'image/png' });
      if (process.env.DEFT_SCREENS_DIR) {
        await mkdir(process.env.DEFT_SCREENS_DIR, { recursive: true });
        await writeFile(join(process.env.DEFT_SCREENS_DIR, name), shot);
      }
    }
    // axe once per screen, state and theme, at the first size (its rules, colour contrast the slowest, do not
    // change with the width; overflow is checked at every size above).
    if (width === SIZES[0][0]) expect(await axeViolations(page), `${screenName}: axe at ${width}×${height}`).toEqual([]);
  }
}
