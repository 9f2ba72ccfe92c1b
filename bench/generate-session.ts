import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionEvent, ToolResultDisplay } from '../protocol';
import { slimResultDisplay } from '../protocol/helpers/file-text';
import { diffDisplay } from '../main/agent/infra/text/diff-hunks';
import { LOG_VERSION, type LogRecord } from '../main/agent/infra/sessions/records';
import { LOG_FILE, META_FILE } from '../main/agent/infra/sessions/session';
import { workspaceSessionsDir } from '../main/agent/infra/sessions/store';

const PARAGRAPH =
  'The change touches the session store and the renderer. It keeps the log append-only, merges streamed deltas at step boundaries, and replays the log when a window opens. ';
const CODE = '```ts\nexport function replay(lines: string[]): number {\n  return lines.filter(Boolean).length;\n}\n```\n';

/** A source file of about `lines` lines, different per turn. */
function sourceFile(turn: number, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export const value${turn}_${i} = compute(${i}, 'part ${turn}'); // line ${i + 1}`).join('\n') + '\n';
}

/**
 * How tool events are recorded: `slim` as the Read, Edit and Write tools do now (Read's text once, in the
 * output; diffs as hunks), `whole` as they did before (Read's text in the output and the card; both whole
 * texts in the Edit's two events) — logs of that shape are still on users' disks.
 */
export type ToolEventShape = 'slim' | 'whole';

/** Tool calls the way the Read and Edit tools record them. */
function fileTools(t: number, turnId: string, step: number, shape: ToolEventShape, event: (e: Record<string, unknown>) => void): void {
  const path = `src/part${t}.ts`;
  const text = sourceFile(t, 70);
  if (t % 2 === 0) {
    event({
      type: 'tool.call.started',
      turnId,
      step,
      callId: `call-${t}`,
      name: 'Read',
      args: { path },
      description: `Reading ${path}`,
      display: { kind: 'file_io', operation: 'read', path },
    });
    const lines = text.slice(0, -1).split('\n');
    const output = lines.map((line, i) => `${i + 1}\t${line}`).join('\n');
    const card: ToolResultDisplay = { kind: 'file_content', path, content: lines.join('\n'), range: { start: 1, end: 70 }, totalLines: 70 };
    const display = shape === 'slim' ? slimResultDisplay(card, output) : card;
    event({ type: 'tool.call.result', turnId, callId: `call-${t}`, name: 'Read', isError: false, output, display, durationMs: 3 });
    return;
  }
  const after = text.replace('line 40', 'line 40 (changed)');
  const display = shape === 'slim' ? diffDisplay(path, text, after) : { ...diffDisplay(path, text, after), before: text, after };
  event({
    type: 'tool.call.started',
    turnId,
    step,
    callId: `call-${t}`,
    name: 'Edit',
    args: { path, old_string: 'line 40', new_string: 'line 40 (changed)' },
    description: `Editing ${path}`,
    display,
  });
  event({
    type: 'tool.call.result',
    turnId,
    callId: `call-${t}`,
    name: 'Edit',
    isError: false,
    output: `Edited ${path}: 1 line changed.`,
    display,
    durationMs: 4,
  });
}

/** A test run's output, `lines` long, different per turn. */
function commandOutput(turn: number, lines: number): string {
  return Array.from({ length: lines }, (_, i) =>
    i % 20 === 0
      ? ` ✓ src/part-${turn}/module-${i}.test.ts (12 tests) ${(i * 7) % 900} ms`
      : `   ✓ part ${turn} case ${i}: keeps the order of rows when the index is rebuilt`,
  ).join('\n');
}

/**
 * Write a realistic session log: turns with a prompt, streamed Markdown with code, a Read or an Edit and
 * its result. `toolCalls: false` makes each turn exactly two messages (prompt and answer).
 */
export async function generateSession(options: {
  home: string;
  workspace: string;
  id: string;
  turns: number;
  toolCalls?: boolean;
  toolEvents?: ToolEventShape;
  title?: string;
  /** The last `turns` turns also run a command whose output is `lines` lines (a test run's, a build's): realistic tool output in the tail. */
  commandOutput?: { lines: number; turns: number };
  /** When it was last updated (the sidebar lists the newest first, and a fresh window opens it); by default its last event's time. */
  updatedAt?: number;
}): Promise<{ events: number; dir: string }> {
  const dir = join(workspaceSessionsDir(options.home, options.workspace), options.id);
  await mkdir(dir, { recursive: true });
  const records: LogRecord[] = [{ r: 'header', version: LOG_VERSION, sessionId: options.id, workspace: options.workspace, createdAt: 0 }];
  let seq = 0;
  const at = 1_700_000_000_000;
  const summary = {
    id: options.id,
    title: options.title ?? 'Generated session',
    workspace: options.workspace,
    createdAt: at,
    updatedAt: at,
    turns: 0,
    running: false,
  };
  const event = (e: Record<string, unknown>) => records.push({ r: 'event', e: { ...e, sessionId: options.id, seq: ++seq, at: at + seq } as SessionEvent });
  for (let t = 0; t < options.turns; t++) {
    const turnId = `turn-${t}`;
    const prompt = `Question ${t}: how does part ${t} of the system work?`;
    const answer = `## Part ${t}\n\n${PARAGRAPH.repeat(2)}\n\n${CODE}\nIn short: part ${t} is done.`;
    event({ type: 'turn.started', turnId, text: prompt, attachments: [], origin: 'user' });
    event({ type: 'session.updated', session: { ...summary, turns: t + 1, running: true } });
    records.push({ r: 'context', m: { role: 'user', content: prompt, turnId } });
    let step = 1;
    if (options.toolCalls !== false) {
      event({ type: 'step.started', turnId, step });
      event({ type: 'assistant.delta', turnId, step, text: 'Let me look at the code first.', fromSeq: seq });
      event({ type: 'step.ended', turnId, step, finishReason: 'tool_use' });
      const callId = `call-${t}`;
      fileTools(t, turnId, step, options.toolEvents ?? 'slim', event);
      records.push({
        r: 'context',
        m: { role: 'assistant', content: 'Let me look at the code first.', toolCalls: [{ id: callId, name: 'Read', arguments: '{}' }] },
      });
      records.push({ r: 'context', m: { role: 'tool', toolCallId: callId, toolName: 'Read', content: 'export const part = 1;' } });
      step++;
    }
    if (options.commandOutput && t >= options.turns - options.commandOutput.turns) {
      const callId = `cmd-${t}`;
      const output = commandOutput(t, options.commandOutput.lines);
      event({ type: 'step.started', turnId, step });
      const display = { kind: 'command', command: 'npm test' };
      event({ type: 'tool.call.started', turnId, step, callId, name: 'Bash', args: { command: 'npm test' }, description: 'npm test', display });
      event({ type: 'tool.call.result', turnId, callId, name: 'Bash', isError: false, output, durationMs: 2400 });
      event({ type: 'step.ended', turnId, step, finishReason: 'tool_use' });
      records.push({ r: 'context', m: { role: 'assistant', content: '', toolCalls: [{ id: callId, name: 'Bash', arguments: '{"command":"npm test"}' }] } });
      records.push({ r: 'context', m: { role: 'tool', toolCallId: callId, toolName: 'Bash', content: output } });
      step++;
    }
    event({ type: 'step.started', turnId, step });
    event({ type: 'assistant.delta', turnId, step, text: answer, fromSeq: seq });
    event({ type: 'step.ended', turnId, step, finishReason: 'end_turn' });
    event({ type: 'usage', turnId, step: { inputTokens: 1000, outputTokens: 200 }, total: { inputTokens: 1000 * (t + 1), outputTokens: 200 * (t + 1) } });
    records.push({ r: 'context', m: { role: 'assistant', content: answer } });
    event({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 1200 });
    event({ type: 'session.updated', session: { ...summary, turns: t + 1 } });
  }
  await writeFile(join(dir, LOG_FILE), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await writeFile(join(dir, META_FILE), JSON.stringify({ ...summary, turns: options.turns, updatedAt: options.updatedAt ?? at + seq }));
  return { events: seq, dir };
}
