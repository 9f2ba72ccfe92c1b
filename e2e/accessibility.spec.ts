import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/deft';
import { screens } from './fixtures/screens';

// axe over every main screen (fixtures/screens.ts) in both themes: a serious or critical violation fails.
// The theme follows the system here, so each run also checks that it does.

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.slice(0, 5).map((n) => `  ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ')}`).join('\n')}`);
}

for (const theme of ['dark', 'light'] as const) {
  for (const screen of screens) {
    test(`accessibility: ${screen.name} (${theme})`, async ({ deft, mock, workspace }) => {
      // axe measures every colour on the page: slow on a busy machine, so this test gets more time.
      test.setTimeout(180_000);
      const { page } = deft;
      await page.emulateMedia({ colorScheme: theme });
      await screen.setup({ page, mock, workspace });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      // Let transitions (hover toolbars, dialogs) settle so colours are measured as shown.
      await page.waitForTimeout(300);
      expect(await violations(page)).toEqual([]);
      await page.setViewportSize({ width: 900, height: 700 });
      await page.waitForTimeout(300);
      expect(await violations(page)).toEqual([]);
    });
  }
}
