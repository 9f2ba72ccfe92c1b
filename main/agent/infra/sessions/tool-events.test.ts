import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reduce } from '../../../../renderer/src/stores/session-slice';
import { type ToolItem, type Transcript, emptyTranscript, transcriptSlice } from '../../../../renderer/src/stores/transcript';
import { createHarness, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import type { ModelMessage } from '#contract/model';
import { LOG_FILE, Session } from './session';
import { workspaceSessionsDir } from './store';

/**
 * Tool events keep large content once (issue 19): Read's text only in the result's output, Edit and Write
 * as diff hunks. `fixtures/tool-events-v2` holds a log the tools wrote before that change (the scenario
 * below, run by the code of that time) with the transcript and model context it replayed to then.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures', 'tool-events-v2');
const APP = Array.from({ length: 40 }, (_, i) => `export const v${i} = ${i}; // line ${i + 1}`).join('\n') + '\n';

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Read, Edit, Write (create, then overwrite after a partial Read), two Edits and a failed one in a turn. */
async function runScenario(h: Awaited<ReturnType<typeof createHarness>>): Promise<void> {
  await mkdir(join(h.workspace, 'src'), { recursive: true });
  await writeFile(join(h.workspace, 'src/app.ts'), APP);
  await writeFile(join(h.workspace, 'src/empty.ts'), '');
  h.server.enqueue(toolStep(callChunk('Read', { path: 'src/app.ts' }), callChunk('Read', { path: 'src/empty.ts' })), textReply('Read it.'));
  await h.run('Read app.ts');
  h.server.enqueue(toolStep(callChunk('Edit', { path: 'src/app.ts', old_string: 'line 20', new_string: 'line twenty' })), textReply('Edited.'));
  await h.run('Edit one line');
  h.server.enqueue(toolStep(callChunk('Write', { path: 'src/new.ts', content: 'export const a = 1;\nexport const b = 2;\n' })), textReply('Created.'));
  await h.run('Create a file');
  h.server.enqueue(
    toolStep(callChunk('Read', { path: 'src/new.ts', line_offset: 2 })),
    toolStep(callChunk('Write', { path: 'src/new.ts', content: 'export const a = 1;\nexport const b = 3;\nexport const c = 4;\n' })),
    textReply('Overwrote.'),
  );
  await h.run('Overwrite it');
  h.server.enqueue(
    toolStep(callChunk('Edit', { path: 'src/app.ts', old_string: 'line 5', new_string: 'line five' })),
    toolStep(callChunk('Edit', { path: 'src/app.ts', old_string: 'line 35', new_string: 'line thirty-five' })),
    toolStep(callChunk('Edit', { path: 'src/app.ts', old_string: 'no such text', new_string: 'x' })),
    textReply('Two edits, one miss.'),
  );
  await h.run('Edit twice');
}

async function load(dir: string) {
  const meta = { id: 'fixture', title: 't', workspace: '/ws', createdAt: 0, updatedAt: 0, turns: 5 };
  const { session, problems } = await Session.load(dir, meta, Date.now);
  const events = await session.allEvents();
  // What the model reads is read back from the log now: a test may remove the log's folder before it looks.
  await session.loadContext();
  return { session, problems, events, transcript: reduce(transcriptSlice, emptyTranscript, events) };
}

async function loadFixture() {
  const dir = await tempDir('deft-old-log-');
  cleanup.push(dir);
  await cp(join(FIXTURE, 'log.jsonl'), join(dir, LOG_FILE));
  return { ...(await load(dir)), log: await readFile(join(dir, LOG_FILE), 'utf8') };
}

const json = async (name: string): Promise<unknown> => JSON.parse(await readFile(join(FIXTURE, name), 'utf8'));

/** What a tool card shows: its call, input display, status and result (no times, no ids). */
function cards(transcript: Transcript, wholeTexts: 'keep' | 'drop') {
  const display = (d: object | undefined) => {
    if (!d || wholeTexts === 'keep') return d;
    const { before: _b, after: _a, omitted: _o, ...rest } = d as Record<string, unknown>;
    return rest;
  };
  return transcript.items
    .filter((item): item is ToolItem => item.kind === 'tool')
    .map((t) => ({
      name: t.name,
      args: t.args,
      description: t.description,
      status: t.status,
      display: display(t.display),
      result: t.result && { output: t.result.output, isError: t.result.isError, display: display(t.result.display) },
    }));
}

/** What the model read of the tools: the calls and results in the context, without ids. */
function toolContext(context: readonly ModelMessage[]): unknown[] {
  return context.flatMap((m): unknown[] =>
    m.role === 'tool'
      ? [{ tool: m.toolName, content: m.content, isError: m.isError ?? false }]
      : m.role === 'assistant' && m.toolCalls?.length
        ? [{ calls: m.toolCalls.map((c) => [c.name, c.arguments]) }]
        : [],
  );
}

/** The tool events' log lines, by tool name. */
function toolLines(log: string, name: string): string[] {
  return log.split('\n').filter((line) => line.includes('"type":"tool.call.') && line.includes(`"name":"${name}"`));
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('tool events in the session log', () => {
  it('an old log (whole texts in every event) still opens to the same transcript and model context', async () => {
    const old = await loadFixture();
    expect(old.problems).toEqual([]);
    expect(old.transcript).toEqual(await json('expected-transcript.json'));
    expect(old.session.context).toEqual(await json('expected-context.json'));
    // It really is the old shape: the Read's text twice in its result, the whole file in the Edit's events.
    const [readResult] = toolLines(old.log, 'Read').filter((l) => l.includes('tool.call.result'));
    expect(count(readResult!, 'export const v39 = 39; // line 40')).toBe(2);
    expect(count(toolLines(old.log, 'Edit').join('\n'), 'export const v0 = 0; // line 1\\n')).toBeGreaterThanOrEqual(4);
  });

  it('a new log keeps each file text once, shows the same cards and gives the model the same', async () => {
    const h = await createHarness();
    let log: string;
    let fresh: Awaited<ReturnType<typeof load>>;
    try {
      await runScenario(h);
      await h.core.close();
      const dir = join(workspaceSessionsDir(h.home, h.workspace), h.session.id);
      log = await readFile(join(dir, LOG_FILE), 'utf8');
      fresh = await load(dir);
    } finally {
      await h.dispose();
    }
    const old = await loadFixture();
    expect(fresh.problems).toEqual([]);

    // Read: the text once, in the output; the card gets it back whole.
    const readResults = toolLines(log, 'Read').filter((l) => l.includes('tool.call.result'));
    expect(count(readResults[0]!, 'export const v39 = 39; // line 40')).toBe(1);
    const oldReads = toolLines(old.log, 'Read').filter((l) => l.includes('tool.call.result'));
    expect(Buffer.byteLength(readResults[0]!)).toBeLessThan(Buffer.byteLength(oldReads[0]!) * 0.6);
    const readCard = fresh.transcript.items.find((i): i is ToolItem => i.kind === 'tool' && i.name === 'Read');
    expect(readCard?.result?.display).toMatchObject({ kind: 'file_content', content: APP.slice(0, -1), range: { start: 1, end: 40 } });

    // Edit: hunks, never the whole file (line 1 is far from every edit).
    const edits = toolLines(log, 'Edit').join('\n');
    expect(edits).not.toContain('export const v0 = 0; // line 1\\n');
    expect(Buffer.byteLength(edits)).toBeLessThan(Buffer.byteLength(toolLines(old.log, 'Edit').join('\n')) / 3);
    expect(edits).toContain('"+export const v19 = 19; // line twenty"');

    // Write: the new text is in the call's arguments and the hunks, no longer also as before/after texts.
    const writes = toolLines(log, 'Write').join('\n');
    expect(count(writes, 'export const c = 4;')).toBeLessThan(count(toolLines(old.log, 'Write').join('\n'), 'export const c = 4;'));

    // The same cards as the old log's, but for the whole texts the diffs no longer carry; the same model context.
    expect(cards(fresh.transcript, 'keep')).toEqual(cards(old.transcript, 'drop'));
    expect(toolContext(fresh.session.context)).toEqual(toolContext(old.session.context));
    // The changed-files rows count the same lines.
    const changes = (t: Transcript) => t.items.flatMap((i) => (i.kind === 'changes' ? [i.files.map((f) => [f.path, f.added, f.removed])] : []));
    expect(changes(fresh.transcript)).toEqual(changes(old.transcript));
    expect(changes(fresh.transcript).length).toBeGreaterThan(0);
  });
});
