import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures/deft';
import { screens } from './fixtures/screens';

const only = process.env.DEFT_SCREEN;
const out = process.env.DEFT_SCREENS_DIR;
for (const screen of screens.filter((s) => !only || only.split(',').includes(s.name))) {
  test(`look: ${screen.name}`, async ({ deft, mock, workspace }) => {
    test.setTimeout(240_000);
    const { page } = deft;
    await screen.setup({ page, mock, workspace });
    if (!out) return;
    await mkdir(out, { recursive: true });
    for (const theme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      for (const [w, h] of [[1280, 800], [900, 700], [1920, 1080]] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(out, `${screen.name}-${theme}-${w}x${h}.png`) });
      }
    }
    expect(true).toBe(true);
  });
}
