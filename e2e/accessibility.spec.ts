import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures/deft';
import { screens } from './fixtures/screens';

// Every main screen (fixtures/screens.ts) in both themes, at 1280×800 and 900×700 (and 1920×1080 when collecting screenshots): axe finds no
// serious or critical violation, nothing overflows the window sideways, and a screenshot of each is
// attached to the report (and written to $DEFT_SCREENS_DIR when set, for looking at them).
// The theme follows the system here, so each run also checks that it does.

// 1920×1080 only when the screenshots are being collected to look at (DEFT_SCREENS_DIR): it keeps CI's run short.
const SIZES = [[1280, 800], [900, 700], ...(process.env.DEFT_SCREENS_DIR ? ([[1920, 1080]] as const) : [])] as const;

/**
 * axe's serious and critical findings. Colour contrast (by far its slowest rule: it measures every text
 * node) is checked once per screen and theme, at the first size: the colours do not change with the
 * width, and theme.test.ts checks every pair of the palettes besides.
 */
async function violations(page: Page, contrast: boolean): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
  const results = await (contrast ? builder : builder.disableRules(['color-contrast'])).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.slice(0, 5).map((n) => `  ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ')}`).join('\n')}`);
}

for (const theme of ['dark', 'light'] as const) {
  for (const screen of screens) {
    test(`accessibility and look: ${screen.name} (${theme})`, async ({ deft, mock, workspace }, testInfo) => {
      // axe measures every colour on the page: slow on a busy machine, so each state of the screen gets time.
      test.setTimeout(180_000 * (1 + (screen.views?.length ?? 0)));
      const { page } = deft;
      await page.emulateMedia({ colorScheme: theme });
      await screen.setup({ page, mock, workspace });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      for (const view of [null, ...(screen.views ?? [])]) {
        if (view) {
          // Each state is reached at the first size, as a person would, then looked at in every size.
          await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] });
          await view.show(page);
        }
        await checkEverySize(page, theme, view ? `${screen.name}-${view.name}` : screen.name, testInfo);
      }
    });
  }
}

async function checkEverySize(page: Page, theme: string, screenName: string, testInfo: TestInfo): Promise<void> {
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    // Let layout and transitions settle so colours and sizes are measured as shown.
    await page.waitForTimeout(300);
    expect(await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth), `no sideways overflow at ${width}×${height}`).toBeLessThanOrEqual(0);
    const shot = await page.screenshot({ animations: 'disabled' });
    const name = `${screenName}-${theme}-${width}x${height}.png`;
    await testInfo.attach(name, { body: shot, contentType: 'image/png' });
    if (process.env.DEFT_SCREENS_DIR) {
      await mkdir(process.env.DEFT_SCREENS_DIR, { recursive: true });
      await writeFile(join(process.env.DEFT_SCREENS_DIR, name), shot);
    }
    // axe once per screen, state and theme, at the first size (the rules do not change with the width; overflow is checked at every size above).
    if (width === SIZES[0][0]) expect(await violations(page, true), `${screenName}: axe at ${width}×${height}`).toEqual([]);
  }
}
