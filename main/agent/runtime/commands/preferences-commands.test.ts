import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeftEvent } from '#protocol';
import { DEFAULT_PRICES } from '#protocol/helpers/prices';
import { textChunks } from '#test-support/mock-model-server';
import { createHarness } from '#test-support/harness';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('window preferences', () => {
  it('start from the system theme, notifications on and the built-in prices, and keep what is set beside the other settings', async () => {
    h = await createHarness();
    expect(await h.core.handlers.getPreferences({})).toEqual({ theme: 'system', notifications: true, prices: DEFAULT_PRICES, pricesEdited: false });
    const updated = await h.core.handlers.setPreferences({ theme: 'light', prices: { 'my-model': { input: 1, output: 2 } } });
    expect(updated).toMatchObject({ theme: 'light', notifications: true, prices: { 'my-model': { input: 1, output: 2 } }, pricesEdited: true });
    expect(h.events.filter((e: DeftEvent) => e.type === 'preferences.updated').at(-1)).toMatchObject({ preferences: updated });
    const raw = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8'));
    // The provider and the permissions written before are still there.
    expect(raw.provider).toMatchObject({ model: 'mock-model' });
    expect(raw.permissions).toEqual({ defaultMode: 'yolo' });
    expect(raw.preferences).toEqual({ theme: 'light', notifications: true, prices: { 'my-model': { input: 1, output: 2 } } });
    // Omitted fields stay; null prices go back to the built-in table.
    expect(await h.core.handlers.setPreferences({ notifications: false, prices: null })).toEqual({
      theme: 'light',
      notifications: false,
      prices: DEFAULT_PRICES,
      pricesEdited: false,
    });
  });

  it('read a damaged field as its default without losing the others', async () => {
    h = await createHarness();
    const raw = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8'));
    await writeFile(
      join(h.home, 'settings.json'),
      JSON.stringify({ ...raw, preferences: { theme: 'purple', notifications: false, prices: { x: { input: -1 } } } }),
    );
    expect(await h.core.handlers.getPreferences({})).toEqual({ theme: 'system', notifications: false, prices: DEFAULT_PRICES, pricesEdited: false });
  });

  it('say a notification was not shown where the host has none, and hand it to the host where it has one', async () => {
    h = await createHarness();
    expect(await h.core.handlers.showNotification({ title: 'Deft', body: 'Done' })).toEqual({ shown: false });
    await h.dispose();
    const shown: unknown[] = [];
    h = await createHarness({ notify: async (n) => (shown.push(n), true) });
    expect(await h.core.handlers.showNotification({ title: 'Deft is waiting', body: 'Approve Bash?' })).toEqual({ shown: true });
    expect(shown).toEqual([{ title: 'Deft is waiting', body: 'Approve Bash?' }]);
  });
});

describe('the context meter', () => {
  it('reports after each model call how full the context is, by source, adding up to the provider count', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('Hello there.', 2), { finish: 'stop' }, { usage: { prompt_tokens: 3000, completion_tokens: 20 } }] });
    await h.run('Say hello');
    const measured = h.sessionEvents('context.measured');
    expect(measured).toHaveLength(1);
    const event = measured[0] as Extract<DeftEvent, { type: 'context.measured' }>;
    expect(event).toMatchObject({ tokens: 3020, contextWindow: 128_000, compactAt: 0.85 });
    const { system, tools, conversation, toolResults } = event.breakdown;
    expect(system + tools + conversation + toolResults).toBe(3020);
    // The system prompt and the tool schemas dwarf a two-line conversation; no tool has run.
    expect(system).toBeGreaterThan(conversation);
    expect(tools).toBeGreaterThan(conversation);
    expect(toolResults).toBe(0);
    expect(h.sessionEvents('usage').at(-1)).toMatchObject({ model: 'mock-model' });
  });
});
