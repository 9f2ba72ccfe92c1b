import type { Environment, FileInfo } from '#contract/environment';
import { z } from 'zod';
import { diffDisplay } from '#infra/text/diff-hunks';
import type { FileTracker } from '../../file-state';
import { type ModelView, fromModelView, toModelView } from '../../line-endings';
import { MAX_EDIT_BYTES, loadTextFile } from '../../text-file';
import { isReviewed, reviewChange } from '../../review-gate';
import { withCodeCheck } from '../../code-check';
import { PREFETCH_BYTES, asToolError, guard, pathRules, statOrNull } from '../../tool-support';
import { formatBytes } from '#protocol/helpers/units';
import type { GuardedPath } from '#infra/policies/path-guard';
import { type Tool, type ToolResult, ToolInputError, access, defineTool } from '#contract/tool';
import description from './write.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const input = toolInput('Write', () =>
  z.object({
    path: z.string().describe('The file to write: relative to the workspace, or absolute.'),
    content: z.string().describe('The exact text to write.'),
    mode: z.enum(['overwrite', 'append']).default('overwrite').describe('"overwrite" (default) replaces the file; "append" adds to its end.'),
  }),
);

/** Appends to files larger than this go straight to the end of the file instead of rewriting it. */
const REWRITE_APPEND_LIMIT = 64 * 1024 * 1024;

/** New text in the file's own line-ending style: LF-only content written to a CRLF file becomes CRLF. */
function inFileStyle(content: string, view: ModelView | null): { text: string; converted: boolean } {
  if (!view || view.style !== 'crlf' || content.includes('\r') || !content.includes('\n')) return { text: content, converted: false };
  return { text: content.replace(/\n/g, '\r\n'), converted: true };
}

async function ensureParent(environment: Environment, path: GuardedPath): Promise<void> {
  const parent = environment.path.dirname(path.real);
  const existing = await statOrNull(environment, parent);
  if (existing && !existing.isDirectory()) throw new ToolInputError(`Cannot write ${path.display}: its parent ${parent} exists but is not a folder.`);
  if (existing) return;
  await environment.mkdir(parent, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    // A folder on the way removed or replaced meanwhile (another process at work in the workspace).
    throw new ToolInputError(
      `Cannot create the folder ${parent} for ${path.display} (${error.code ?? 'error'}: ${error.message}); nothing was written. Check the folder and try again.`,
    );
  });
  // mkdir follows links: a folder swapped for one meanwhile would have put the new folders elsewhere.
  if ((await environment.realpath(parent).catch(() => parent)) !== parent)
    throw new ToolInputError(`A folder above ${path.display} changed while it was being created (it was replaced by a link); nothing was written.`);
}

/** The current text in the model's view, when it is small enough to diff and decodable (`read`: its bytes, already read). */
async function currentText(environment: Environment, path: GuardedPath, size: number, read?: Buffer): Promise<ModelView | null> {
  if (size > MAX_EDIT_BYTES) return null;
  try {
    return (await loadTextFile(environment, path.real, path.display, size, read)).view;
  } catch {
    return null;
  }
}

const sameFile = (a: FileInfo, b: FileInfo) => a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;

export function writeTool(files: FileTracker): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'Write',
    // A file edit: accept-edits mode runs it inside the workspace; plan mode lets it change only the plan file.
    policy: { approval: 'edit', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      // A file that fits in one answer comes with the guard's facts where the machine can (one round trip over SSH);
      // asked only for a file the session read or wrote (by the path as given): any other existing file is refused
      // by the stale guard anyway, and a new one has nothing to read (its failed read would cost a round trip more).
      const known = files.has(env.environment.path.resolve(env.workspace, args.path.trim()));
      const path = await guard(env, args.path, 'write', known ? { prefetch: PREFETCH_BYTES } : {});
      const read = path.content?.current() ? path.content : null;
      // The stat the path guard took with the real path (the call stats the file again when it runs, unless the
      // replace checks it there: below).
      const existing = read ? read.info : path.info !== undefined ? path.info : await statOrNull(env.environment, path.real);
      if (existing?.isDirectory()) throw new ToolInputError(`${path.display} is a folder; give Write the path of a file.`);
      if (existing && !existing.isFile())
        throw new ToolInputError(`${path.display} is not a regular file (it is a device, socket or pipe); Write does not write to it.`);
      const before = existing ? await currentText(env.environment, path, existing.size, read?.bytes) : toModelView('');
      // The preview's look at an existing text file, reused when the call runs if the replace can check there that
      // the file is still exactly so (`replaceFileIfUnchanged`, SSH): no stat and no read again first.
      const preview = existing && before && env.environment.replaceFileIfUnchanged ? { stats: existing, view: before } : null;
      const appending = args.mode === 'append';
      const display =
        before !== null
          ? diffDisplay(path.display, before.text, appending ? before.text + args.content : args.content)
          : { kind: 'file_io' as const, operation: 'write' as const, path: path.display, content: args.content.slice(0, 20_000) };
      return {
        accesses: access.writeFile(path.real),
        description: `${appending ? 'Append to' : existing ? 'Overwrite' : 'Create'} ${path.display}`,
        display,
        ...pathRules('Write', path),
        ...(isReviewed(env, path) ? { reviewedByUser: true } : {}),
        execute: (ctx) =>
          asToolError(async (): Promise<ToolResult> => {
            // The stale guard asked about the preview's stat, which the replace then requires there (one round trip
            // over SSH for the whole run); otherwise the file is stat'd and read again now.
            const checkThere = preview && files.refusal(path.real, path.display, preview.stats, 'write') === null ? preview : null;
            const stats = checkThere ? checkThere.stats : await statOrNull(env.environment, path.real);
            if (stats && !stats.isFile()) throw new ToolInputError(`${path.display} is no longer a regular file; Write does not write to it.`);
            if (stats) {
              const refusal = files.refusal(path.real, path.display, stats, 'write');
              if (refusal) throw new ToolInputError(refusal);
            } else {
              await ensureParent(env.environment, path);
            }
            const view = checkThere ? checkThere.view : stats ? await currentText(env.environment, path, stats.size) : null;
            const beforeText = view?.text ?? '';
            let afterText = appending ? beforeText + args.content : args.content;
            // Review mode: the user accepts or rejects the change hunk by hunk before anything is written.
            const reviewed = await reviewChange(env, ctx, {
              toolName: 'Write',
              path,
              before: stats && !view ? null : beforeText,
              after: afterText,
              created: !stats,
            });
            if (reviewed.kind === 'rejected') return reviewed.result;
            const partial = reviewed.text !== afterText;
            afterText = reviewed.text;
            const { text, converted } = inFileStyle(partial ? afterText : args.content, view);
            const bytes = Buffer.byteLength(text);
            // The file's stat after the write (replaceFile answers it with the rename).
            let after: FileInfo | null;
            const replace = async (data: string): Promise<FileInfo | null> => {
              if (!checkThere) return env.environment.replaceFile(path.real, data);
              const done = await env.environment.replaceFileIfUnchanged!(path.real, data, checkThere.stats);
              if (done !== 'changed' && done !== 'unavailable') return done;
              // Changed since the preview (refused, as when the stat before it shows it), or the check could not run there.
              const now = await statOrNull(env.environment, path.real);
              if (!now) throw new ToolInputError(`${path.display} was removed while it was being written; nothing was written. Write it again to create it.`);
              if (done === 'changed' || !sameFile(checkThere.stats, now)) {
                throw new ToolInputError(
                  files.refusal(path.real, path.display, now, 'write') ??
                    `${path.display} changed while it was being written; nothing was written. Read it again, then redo the write.`,
                );
              }
              return env.environment.replaceFile(path.real, data);
            };
            if (partial) {
              after = await replace(view ? fromModelView(afterText, view) : afterText);
            } else if (appending && stats && (!view || stats.size > REWRITE_APPEND_LIMIT)) {
              if ((await env.environment.realpath(path.real).catch(() => null)) !== path.real)
                throw new ToolInputError(`${path.display} changed while it was being written (a folder above it was replaced); nothing was appended.`);
              await env.environment.writeFile(path.real, text, { flag: 'a' });
              after = await env.environment.stat(path.real).catch(() => null);
            } else {
              const whole = appending && view ? fromModelView(view.text, view) + text : view?.bom && !text.startsWith('\ufeff') ? `\ufeff${text}` : text;
              after = await replace(whole);
            }
            if (!after)
              throw new ToolInputError(`${path.display} was written, but is no longer there (a folder above it changed meanwhile). Check it and try again.`);
            files.record(path.real, after);
            const kept = converted ? ' (kept its CRLF line endings)' : '';
            const written = appending
              ? `Appended ${bytes} bytes to ${path.display}${kept}.`
              : stats
                ? `Wrote ${bytes} bytes to ${path.display}${kept}.`
                : `Created ${path.display} and wrote ${bytes} bytes.`;
            const output = partial
              ? `Wrote the accepted part of the change to ${path.display}.\n${reviewed.report}`
              : reviewed.report
                ? `${written}\n${reviewed.report}`
                : written;
            const result: ToolResult = {
              output,
              display:
                view || !stats
                  ? diffDisplay(path.display, beforeText, afterText)
                  : { kind: 'text', text: `${output} The previous content (${formatBytes(stats.size)}) was not text or too large to compare.` },
            };
            // What was there before, as on disk: unknown (not text, too large) means no comparison, so no check.
            return stats && !view ? result : withCodeCheck(env, ctx, path.real, view ? fromModelView(view.text, view) : null, result);
          }),
      };
    },
  });
}
