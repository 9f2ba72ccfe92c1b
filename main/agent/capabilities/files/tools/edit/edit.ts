import type { FileInfo } from '#contract/environment';
import { z } from 'zod';
import { closestPassage } from '../../closest-passage';
import { diffDisplay } from '#infra/text/diff-hunks';
import type { FileTracker } from '../../file-state';
import { type ModelView, fromModelView } from '../../line-endings';
import { loadTextFile } from '../../text-file';
import { isReviewed, reviewChange } from '../../review-gate';
import { withCodeCheck } from '../../code-check';
import { PREFETCH_BYTES, asToolError, existingFile, guard, pathRules, statOrNull } from '../../tool-support';
import type { ToolInputDisplay } from '#protocol';
import { type Tool, type ToolResult, ToolInputError, access, defineTool } from '#contract/tool';
import { headOf } from '#contract/output-limits';
import description from './edit.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const input = toolInput('Edit', () =>
  z.object({
    path: z.string().describe('The file to edit: relative to the workspace, or absolute.'),
    old_string: z.string().min(1, 'old_string must not be empty; to create a file use Write').describe('The exact text to replace.'),
    new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence instead of exactly one. Default false.'),
  }),
);
type EditArgs = z.output<SchemaOf<typeof input>>;

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** In a pure-CRLF file the model works with LF; its strings are brought into that view too. */
function normalise(args: EditArgs, view: ModelView): { oldString: string; newString: string } {
  if (view.style !== 'crlf') return { oldString: args.old_string, newString: args.new_string };
  return { oldString: args.old_string.replace(/\r\n/g, '\n'), newString: args.new_string.replace(/\r\n/g, '\n') };
}

function notFound(display: string, text: string, oldString: string): string {
  const head = `old_string was not found in ${display}.`;
  const passage = closestPassage(text, oldString);
  if (!passage || passage.similarity < 0.3) {
    return `${head} Nothing in the file resembles it. Read the file again to see its current content, then retry with text copied exactly from it.`;
  }
  const end = passage.startLine + passage.lines.length - 1;
  const shown = passage.lines.map((line, i) => `${passage.startLine + i}\t${line.length > 500 ? `${headOf(line, 500)}...` : line}`).join('\n');
  const why = passage.whitespaceOnly
    ? 'It differs from your old_string only in whitespace (indentation, spaces or line breaks).'
    : `It is ${Math.round(passage.similarity * 100)}% similar to your old_string.`;
  return `${head} The closest passage is lines ${passage.startLine}-${end}. ${why}\n${shown}\nCopy the text exactly from these lines (without the line-number prefix) and retry; Read the file again if it may have changed.`;
}

function replace(text: string, oldString: string, newString: string, positions: number[], all: boolean): string {
  if (all) return text.split(oldString).join(newString);
  const at = positions[0]!;
  return text.slice(0, at) + newString + text.slice(at + oldString.length);
}

const sameFile = (a: FileInfo, b: FileInfo) => a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;

/** The change an edit would make to the file's current text, or why it cannot be made. */
function plan(args: EditArgs, view: ModelView, display: string) {
  const { oldString, newString } = normalise(args, view);
  if (oldString === newString) {
    throw new ToolInputError(
      `old_string and new_string differ only in line endings, and ${display} keeps its CRLF line endings whichever you send, so there are no changes to make.`,
    );
  }
  const positions = occurrences(view.text, oldString);
  if (!positions.length) throw new ToolInputError(notFound(display, view.text, oldString));
  if (positions.length > 1 && !args.replace_all) {
    const lines = positions.slice(0, 10).map((p) => lineAt(view.text, p));
    throw new ToolInputError(
      `Found ${positions.length} occurrences of old_string in ${display} (at lines ${lines.join(', ')}${positions.length > 10 ? ', …' : ''}). Either set replace_all=true to replace all of them, or add surrounding lines to old_string so it matches exactly one.`,
    );
  }
  const after = replace(view.text, oldString, newString, positions, args.replace_all);
  return { view, after, count: args.replace_all ? positions.length : 1, firstLine: lineAt(view.text, positions[0]!) };
}

export function editTool(files: FileTracker): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'Edit',
    // A file edit: accept-edits mode runs it inside the workspace; plan mode lets it change only the plan file.
    policy: { approval: 'edit', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      if (args.old_string === args.new_string) {
        throw new ToolInputError('old_string and new_string are identical, so there are no changes to make. Give the new text in new_string.');
      }
      // A file that fits in one answer comes with the guard's facts where the machine can (one round trip over SSH).
      const path = await guard(env, args.path, 'write', { prefetch: PREFETCH_BYTES });
      // A preview for the card and the approval prompt. It is reused when the call runs if the file is
      // still exactly as it was; otherwise (an earlier call in the step changed it) the edit is planned again.
      // An edit that cannot apply fails now, without asking anyone, unless an earlier call may still change the file.
      const later = env.changedEarlier?.(path.real) === true;
      let display: ToolInputDisplay = {
        kind: 'file_io',
        operation: 'edit',
        path: path.display,
        detail: args.replace_all ? 'replace all occurrences' : 'replace one occurrence',
      };
      let preview: { stats: FileInfo; view: ModelView; change: ReturnType<typeof plan>; display: ReturnType<typeof diffDisplay> } | null = null;
      // The stat the path guard took with the real path (the preview is checked against the file again when it runs).
      const read = path.content?.current() ? path.content : null;
      const current = read ? read.info : path.info !== undefined ? path.info : await statOrNull(env.environment, path.real);
      if (current?.isFile()) {
        try {
          const { view } = await loadTextFile(env.environment, path.real, path.display, current.size, read?.bytes);
          const change = plan(args, view, path.display);
          preview = { stats: current, view, change, display: diffDisplay(path.display, view.text, change.after) };
          display = preview.display;
        } catch (error) {
          if (!later && error instanceof ToolInputError) throw new ToolInputError(error.message, { description: `Edit ${path.display}`, display });
          // Otherwise reported when the edit runs.
        }
      } else if (!later)
        await existingFile(env.environment, path, 'To create a file, use Write.').catch((error: unknown) => {
          throw error instanceof ToolInputError ? new ToolInputError(error.message, { description: `Edit ${path.display}`, display }) : error;
        });
      return {
        accesses: access.readWriteFile(path.real),
        description: `Edit ${path.display}`,
        display,
        ...pathRules('Edit', path),
        ...(isReviewed(env, path) ? { reviewedByUser: true } : {}),
        execute: (ctx) =>
          asToolError(async (): Promise<ToolResult> => {
            // Where the machine checks the file against the preview's stat in the replace's own round trip (SSH):
            // no stat first. The stale guard is asked about the preview's stat, which the replace then requires.
            const checkThere =
              preview && env.environment.replaceFileIfUnchanged && files.refusal(path.real, path.display, preview.stats, 'edit') === null ? preview : null;
            const stats = checkThere ? checkThere.stats : await existingFile(env.environment, path, 'To create a file, use Write.');
            const unchanged = preview && sameFile(preview.stats, stats) ? preview : null;
            const view = unchanged?.view ?? (await loadTextFile(env.environment, path.real, path.display, stats.size)).view;
            const refusal = files.refusal(path.real, path.display, stats, 'edit');
            if (refusal) throw new ToolInputError(refusal);
            const change = unchanged?.change ?? plan(args, view, path.display);
            // Review mode: the user accepts or rejects the edit hunk by hunk before anything is written.
            const reviewed = await reviewChange(env, ctx, { toolName: 'Edit', path, before: view.text, after: change.after, created: false });
            if (reviewed.kind === 'rejected') return reviewed.result;
            // Its stat just after the rename (a remote backend asks with the rename, not a round trip later).
            const data = fromModelView(reviewed.text, view);
            let after: FileInfo | null;
            if (checkThere) {
              const done = await env.environment.replaceFileIfUnchanged!(path.real, data, checkThere.stats);
              if (done === 'changed' || done === 'unavailable') {
                // Changed since the preview (refused, as when the stat before it shows it), or the check could not run there.
                const now = await existingFile(env.environment, path, 'To create a file, use Write.');
                if (done === 'changed' || !sameFile(checkThere.stats, now)) {
                  throw new ToolInputError(
                    files.refusal(path.real, path.display, now, 'edit') ??
                      `${path.display} changed while the edit was being made; nothing was written. Read it again, then redo the edit.`,
                  );
                }
                after = await env.environment.replaceFile(path.real, data);
              } else after = done;
            } else after = await env.environment.replaceFile(path.real, data);
            if (!after)
              throw new ToolInputError(`${path.display} was written, but is no longer there (a folder above it changed meanwhile). Check it and try again.`);
            files.record(path.real, after);
            const what = change.count === 1 ? '1 occurrence' : `${change.count} occurrences`;
            const partial = reviewed.text !== change.after;
            const done = partial
              ? `Applied the accepted part of the edit to ${path.display}.`
              : `Replaced ${what} in ${path.display} (first at line ${change.firstLine}).`;
            return withCodeCheck(env, ctx, path.real, fromModelView(view.text, view), {
              output: reviewed.report ? `${done}\n${reviewed.report}` : done,
              display: partial
                ? diffDisplay(path.display, view.text, reviewed.text)
                : (unchanged?.display ?? diffDisplay(path.display, view.text, change.after)),
            });
          }),
      };
    },
  });
}
