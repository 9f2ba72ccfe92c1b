import { describe, expect, it } from 'vitest';
import { fakeIdle } from '../../testing/idle';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { transcriptWarmupSteps } from './transcript-warmup';
import { warmWindowWhenIdle } from './window-warmup';

/** What an element rendered (or anything inside it) shows, by the classes and labels the conversation uses. */
function shown(element: Element): string[] {
  const found: string[] = [];
  const all = [element, ...element.querySelectorAll('*')];
  for (const el of all) {
    const label = el.getAttribute('aria-label');
    if (label?.endsWith(' tool call')) found.push(label);
    for (const name of ['message-user', 'markdown', 'diff', 'code-table', 'command-output', 'search-results', 'file-list', 'tool-output', 'notice'])
      if (el.classList.contains(name)) found.push(name);
  }
  return found;
}

describe('warming the transcript when idle', () => {
  it('renders each row and tool-card kind off screen, a row a step, and leaves nothing in the page or the stores', () => {
    const before = document.body.innerHTML;
    const transcript = useTranscript.getState();
    const sessions = useSessions.getState();
    const seen = new Set<string>();
    const observer = new MutationObserver(() => {});
    observer.observe(document.body, { childList: true, subtree: true });
    let steps = 0;
    for (const _ of transcriptWarmupSteps(1)) {
      steps++;
      // Between steps (the window's other tasks), none of it is in the page.
      expect(document.body.innerHTML).toBe(before);
      for (const record of observer.takeRecords()) for (const node of record.addedNodes) if (node instanceof Element) for (const s of shown(node)) seen.add(s);
    }
    observer.disconnect();
    expect(steps).toBeGreaterThan(10);
    for (const tool of ['Read', 'Edit', 'Bash', 'Grep', 'Glob', 'FetchURL']) expect(seen).toContain(`${tool} tool call`);
    // The bodies: a diff, a file's text, a command's output, search results, a listing, a text result; and the messages.
    for (const kind of ['message-user', 'markdown', 'diff', 'code-table', 'command-output', 'search-results', 'file-list', 'tool-output'])
      expect(seen).toContain(kind);
    expect(useTranscript.getState()).toBe(transcript);
    expect(useSessions.getState()).toBe(sessions);
  });

  it('takes no step while a session is opening, and goes on once it is open', () => {
    const idle = fakeIdle();
    let ran = 0;
    const steps = (function* () {
      for (let i = 0; i < 5; i++) {
        ran++;
        yield;
      }
    })();
    let opening = true;
    warmWindowWhenIdle(idle, steps, () => opening);
    idle.period([50]);
    idle.period([50]);
    expect(ran).toBe(0);
    // It waits for the next idle period rather than giving up.
    expect(idle.waiting.size).toBe(1);
    opening = false;
    idle.period([50]);
    expect(ran).toBe(5);
  });

  it('stops stepping when a session starts opening in the middle of an idle period', () => {
    const idle = fakeIdle();
    let ran = 0;
    let opening = false;
    const steps = (function* () {
      for (let i = 0; i < 5; i++) {
        ran++;
        if (ran === 2) opening = true;
        yield;
      }
    })();
    warmWindowWhenIdle(idle, steps, () => opening);
    idle.period([50]);
    expect(ran).toBe(2);
    expect(idle.waiting.size).toBe(1);
  });
});
