import { isAbsolute, resolve } from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';

// How a Deft tool card reads in an ACP client: its kind (the client's icon), the files it touches and its content.

/** The ACP kind of a call, from its display (what it does) and, for the few that say nothing there, its name. */
export function toolKind(name: string, display: ToolInputDisplay): ToolKind {
  switch (display.kind) {
    case 'diff':
      return 'edit';
    case 'file_io':
      return display.operation === 'read' || display.operation === 'media'
        ? 'read'
        : display.operation === 'glob' || display.operation === 'grep'
          ? 'search'
          : 'edit';
    case 'command':
      return 'execute';
    case 'search':
      return 'search';
    case 'url_fetch':
    case 'web_search':
    case 'network':
      return 'fetch';
    case 'todo_list':
      return 'think';
    case 'plan_review':
      return 'switch_mode';
    default:
      return name === 'EnterPlanMode' || name === 'ExitPlanMode' ? 'switch_mode' : 'other';
  }
}

/** The files a call reads or changes, as absolute paths (ACP wants them absolute; Deft shows them relative to the workspace). */
export function toolLocations(display: ToolInputDisplay | ToolResultDisplay, cwd: string): ToolCallLocation[] {
  if (!('path' in display) || typeof display.path !== 'string' || !display.path) return [];
  const path = isAbsolute(display.path) ? display.path : resolve(cwd, display.path);
  const line = display.kind === 'file_content' ? display.range?.start : display.kind === 'diff' ? display.hunks?.[0]?.newStart : undefined;
  return [{ path, ...(line !== undefined && line > 0 ? { line } : {}) }];
}

type DiffDisplay = Extract<ToolInputDisplay | ToolResultDisplay, { kind: 'diff' }>;

/**
 * A diff card as ACP diff content. Deft keeps the hunks (3 lines of context), not whole files, so old and new text
 * are the hunks' sides; a change that adds to an empty or new file has no old text.
 */
export function diffContent(display: DiffDisplay, cwd: string): ToolCallContent {
  const path = isAbsolute(display.path) ? display.path : resolve(cwd, display.path);
  if (display.before !== undefined && display.after !== undefined && !display.omitted) {
    return { type: 'diff', path, oldText: display.before === '' ? null : display.before, newText: display.after };
  }
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const hunk of display.hunks ?? []) {
    for (const line of hunk.lines) {
      const sign = line[0];
      const text = line.slice(1);
      if (sign === ' ' || sign === '-') oldLines.push(text);
      if (sign === ' ' || sign === '+') newLines.push(text);
    }
  }
  const created = (display.hunks ?? []).every((hunk) => hunk.oldLines === 0 && hunk.oldStart <= 1) && oldLines.length === 0;
  return { type: 'diff', path, oldText: created ? null : oldLines.join('\n'), newText: newLines.join('\n') };
}

/** Text as tool call content. */
export const textContent = (text: string): ToolCallContent => ({ type: 'content', content: { type: 'text', text } });

/** Keep the end of a command's output: a client shows what it was sent, and the model's own copy is capped anyway. */
export const OUTPUT_TAIL_CHARS = 20_000;

export function tail(text: string, max = OUTPUT_TAIL_CHARS): string {
  return text.length <= max ? text : `…${text.slice(text.length - max)}`;
}

/** Command output fenced, so the client shows it as it was printed. */
export function commandText(output: string): string {
  const fence = output.includes('```') ? '````' : '```';
  return `${fence}\n${tail(output)}\n${fence}`;
}

/** What a finished call shows: its diff, its command output, or the text the model received. */
export function resultContent(display: ToolResultDisplay | undefined, output: string, cwd: string): ToolCallContent[] {
  if (display?.kind === 'diff') return [diffContent(display, cwd)];
  if (display?.kind === 'command_output') return display.output ? [textContent(commandText(display.output))] : [];
  if (display?.kind === 'image')
    return [{ type: 'content', content: { type: 'image', data: display.dataUrl.replace(/^data:[^,]*,/, ''), mimeType: display.mimeType } }];
  return output ? [textContent(tail(output))] : [];
}
