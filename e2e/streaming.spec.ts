import { deltas, longAnswer } from '../test-support/long-answer';
import { configureProvider, expect, send, test } from './fixtures/deft';

test('a long streamed answer with code blocks is shown whole and right once it ends', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const answer = longAnswer(12_000);
  const sections = answer.split('## Part ').length - 1;
  mock.enqueue({ chunks: [...deltas(answer, 24).map((text) => ({ text })), { finish: 'stop' }], perSecond: 1_000 });
  await send(page, 'Explain every part');

  const message = page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Assistant message' });
  await expect(message.getByRole('toolbar', { name: 'Answer actions' })).toBeVisible({ timeout: 30_000 });
  await expect(message).toContainText('That is all: every part is done.');
  const markdown = message.locator('.markdown');
  await expect(markdown.locator('h2')).toHaveCount(sections);
  await expect(markdown.locator('table')).toHaveCount(sections);
  await expect(markdown.locator('pre code')).toHaveCount(sections);
  // Every code block is highlighted (the last one too, once its fence closed) and holds its code exactly.
  await expect(markdown.locator('pre code.hljs')).toHaveCount(sections);
  const firstCode = answer.slice(answer.indexOf('```ts\n') + 6, answer.indexOf('\n```', answer.indexOf('```ts\n')));
  expect(await markdown.locator('pre code').first().textContent()).toBe(`${firstCode}\n`);
  await expect(markdown.locator('pre code').first().locator('.hljs-keyword').first()).toHaveText('export');
  await expect(markdown.locator('strong', { hasText: 'keeps only what it needs' })).toHaveCount(sections);
  // Nothing was rendered twice or lost between blocks: the text reads as the answer does.
  const shown = await markdown.innerText();
  expect(shown.split('what changes').length - 1).toBe(sections);
  expect(shown.indexOf('Here is the plan, part by part.')).toBe(0);
});

test('the view keeps following an answer that grows by more than a screen at a time', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // Each piece adds a code block taller than the window: the content grows a lot between a pin and
  // the scroll event it causes, which must not read as the reader scrolling away.
  const piece = (n: number) => `Step ${n}:\n\n\`\`\`text\n${Array.from({ length: 40 }, (_, i) => `step ${n} line ${i + 1}`).join('\n')}\n\`\`\`\n\n`;
  const chunks = [...Array.from({ length: 80 }, (_, n) => ({ text: piece(n + 1) })), { text: 'The very last line.' }, { finish: 'stop' as const }];
  mock.enqueue({ chunks, perSecond: 120 });
  await send(page, 'Show every step');

  const log = page.getByRole('log', { name: 'Conversation' });
  const message = log.getByRole('article', { name: 'Assistant message' });
  await expect(message.getByRole('toolbar', { name: 'Answer actions' })).toBeVisible({ timeout: 30_000 });
  await expect(message.getByText('The very last line.')).toBeInViewport();
  expect(await log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(48);
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0);
});

test('the groups a streaming answer is shown in change no spacing: its blocks sit where they do once it ends', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const answer = `Intro before the parts.\n\n> A quote to begin with,\n> over two lines.\n\n1. first step\n2. second step\n   - nested point\n\n${longAnswer(5_000)}`;
  mock.enqueue({ chunks: [...deltas(answer, 16).map((text) => ({ text })), { finish: 'stop' }], perSecond: 1_000 });
  await send(page, 'Explain every part');
  const message = page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Assistant message' });
  await expect(message.getByRole('toolbar', { name: 'Answer actions' })).toBeVisible({ timeout: 30_000 });
  // Tall enough that no group is out of view (a group skipped out of view reports no positions of its own).
  await page.setViewportSize({ width: 1100, height: 5_000 });
  // A style change takes effect in the page's next frames: content-visibility's on-screen check runs in a
  // frame's update, and until then a group may be skipped at its placeholder size (seen on a loaded CI machine).
  const frames = () =>
    message.evaluate(
      (el) =>
        new Promise<void>((done) =>
          el.ownerDocument.defaultView!.requestAnimationFrame(() => el.ownerDocument.defaultView!.requestAnimationFrame(() => done())),
        ),
    );
  await frames();
  const markdown = message.locator('.markdown');
  const tops = () =>
    markdown.evaluate((root) =>
      [...root.querySelectorAll(':scope > .markdown-chunk > *')].map((block) =>
        Math.round(block.getBoundingClientRect().top - root.getBoundingClientRect().top),
      ),
    );
  const ended = await tops();
  expect(ended.length).toBeGreaterThan(30);
  // As while it streamed: each full group a box of its own (contained, or content-visibility), its margins kept inside it.
  await message.evaluate((article) => article.setAttribute('aria-busy', 'true'));
  await frames();
  const boxes = await markdown.evaluate(
    (root) =>
      [...root.querySelectorAll('.markdown-chunk')].filter((c) => {
        // Skippable (content-visibility) or, nearer the end, contained as a skippable one is.
        const style = c.ownerDocument.defaultView!.getComputedStyle(c);
        return style.contentVisibility === 'auto' || style.contain !== 'none';
      }).length,
  );
  expect(boxes).toBeGreaterThan(3);
  expect(await tops()).toEqual(ended);
});

test('scrolled up while an answer streams, the view stays where the reader put it; Jump to latest follows again', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // About 60 s of text: still streaming when the last check runs, also on a loaded machine (the mock streams in
  // wall time; with 20 s, a slow page saw the answer end before Jump to latest could be checked).
  const answer = longAnswer(48_000);
  mock.enqueue({ chunks: [...deltas(answer, 8).map((text) => ({ text })), { finish: 'stop' }], perSecond: 100 });
  await send(page, 'Explain every part');
  const log = page.getByRole('log', { name: 'Conversation' });
  const message = log.getByRole('article', { name: 'Assistant message' });
  const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  // Following while it grows past a screen or two. Asked of the view's place, not of one heading being in
  // view: a heading is in view only while it is among the newest lines, and a loaded page's checks, a second
  // apart, saw "Part 3" only after the view had followed on past it (the screenshot at Part 31). The end is
  // read again until the pin has run: a read can fall between text committed and the frame that pins it.
  await expect(message.getByText('Part 3: what changes')).toBeAttached({ timeout: 30_000 });
  await expect.poll(fromEnd).toBeLessThan(48);
  // The reader scrolls up (a wheel, as a reader does): the answer grows below, the view does not move.
  await log.hover();
  await page.mouse.wheel(0, -600);
  await expect.poll(fromEnd).toBeGreaterThan(400);
  const top = await log.evaluate((el) => el.scrollTop);
  const height = await log.evaluate((el) => el.scrollHeight);
  await expect.poll(() => log.evaluate((el) => el.scrollHeight), { timeout: 15_000 }).toBeGreaterThan(height + 300);
  expect(await log.evaluate((el) => el.scrollTop)).toBe(top);
  await expect(message).toHaveAttribute('aria-busy', 'true');
  // Jump to latest: at the end again, and it stays there as the answer keeps growing.
  await page.getByRole('button', { name: 'Jump to latest' }).click();
  const after = await log.evaluate((el) => el.scrollHeight);
  await expect.poll(() => log.evaluate((el) => el.scrollHeight), { timeout: 15_000 }).toBeGreaterThan(after + 300);
  await expect.poll(fromEnd).toBeLessThan(48);
  await expect(message).toHaveAttribute('aria-busy', 'true');
});
