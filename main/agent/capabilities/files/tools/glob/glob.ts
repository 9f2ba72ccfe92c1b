import { join } from 'node:path';
import { z } from 'zod';
import { MtimeIndex } from '../../newest-first';
import { RG_TIMEOUT_MS, commonArgs, completeRecords, exclusionArgs, runRipgrep } from '../../ripgrep';
import { type SearchRoot, checkRootReadable, deniedNote, filteredNote, hiddenFiles, isAbsolutePattern, searchRoot, withoutSensitive } from '../../search-root';
import { asToolError } from '../../tool-support';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import { type Tool, type ToolEnv, type ToolResult, ToolInputError, access, defineTool } from '#contract/tool';
import description from './glob.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

export const MAX_MATCHES = 100;

const input = toolInput('Glob', () =>
  z.object({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "*.ts", "src/**/*.test.ts", "*.{json,yaml}".'),
    path: z.string().optional().describe('Folder to search (relative to the workspace, or absolute). Default: the workspace.'),
    include_ignored: z.boolean().default(false).describe('Also list files ignored by .gitignore and similar (secret files stay excluded).'),
    // Models trained on other agents send this; folders are never listed, and the result says so.
    include_dirs: z.boolean().optional().describe('Folders are never listed, only files; with true the result says so.'),
  }),
);
type GlobArgs = z.output<SchemaOf<typeof input>>;

const GLOB_SPECIALS = /[*?[\]{}!]/;

/** An absolute pattern is split into its fixed folder (the search root) and the glob below it. */
function splitPattern(args: GlobArgs): { root: string | undefined; pattern: string } {
  let pattern = args.pattern.trim().replace(/^\.\//, '');
  if (isAbsolutePattern(pattern)) {
    if (args.path) throw new ToolInputError('Give either an absolute pattern, or a path plus a pattern relative to it — not both.');
    const parts = pattern.split('/');
    const firstGlob = parts.findIndex((p) => GLOB_SPECIALS.test(p));
    if (firstGlob === -1) throw new ToolInputError(`"${pattern}" has no wildcard. To check one file, Read it; to list a folder, use its path and pattern "*".`);
    return { root: parts.slice(0, firstGlob).join('/') || '/', pattern: parts.slice(firstGlob).join('/') };
  }
  if (pattern.split('/').includes('..'))
    throw new ToolInputError('The pattern may not contain "..". To list files outside the search folder, give that folder as an absolute path.');
  pattern = pattern.replace(/^\/+/, '');
  return { root: args.path, pattern };
}

async function list(pattern: string, args: GlobArgs, root: SearchRoot, env: ToolEnv, signal: AbortSignal): Promise<ToolResult> {
  const rgArgs = [...commonArgs({ lineBuffered: false }), '--files', ...(args.include_ignored ? ['--no-ignore'] : []), '--glob', pattern, ...exclusionArgs()];
  const absolute = (p: string) => join(root.path.real, p);
  const times = new MtimeIndex(env.environment);
  const result = await runRipgrep(rgArgs, {
    environment: env.environment,
    cwd: root.path.real,
    signal,
    onLine: (line) => line && times.add(line, absolute(line)),
  });
  if (signal.aborted) return { output: 'Glob was interrupted.', isError: true };
  const records = completeRecords(result.stdout).filter(Boolean);
  if (result.exitCode === 2 && /No files were searched/.test(result.stderr)) records.length = 0;
  else if (result.exitCode !== null && result.exitCode > 1 && !records.length) {
    throw new ToolInputError(
      `Listing files failed: ${result.stderr.trim().split('\n').slice(0, 5).join('; ') || `rg exited with ${result.exitCode}`}. Check the pattern.`,
    );
  }
  if (result.timedOut && !records.length) throw new ToolInputError(`Glob timed out after ${RG_TIMEOUT_MS / 1000} s without results. Search a smaller folder.`);
  const hidden = await hiddenFiles(env, records.map(absolute));
  const { filtered, denied } = withoutSensitive(records, absolute, hidden);
  const sorted = await times.newestFirst((p) => !hidden.reason(absolute(p)));
  const shown = sorted.slice(0, MAX_MATCHES).map((p) => root.show(absolute(p)));
  const lines: string[] = [];
  const notice = env.environment.takeSearchNotice?.();
  if (notice) lines.push(notice);
  if (!sorted.length) lines.push(`No files match "${args.pattern}"${args.path ? ` in ${root.path.display}` : ''}.`);
  else if (sorted.length > MAX_MATCHES) lines.push(`Found ${sorted.length} files; showing the ${MAX_MATCHES} most recently modified.`);
  else if (sorted.length === MAX_MATCHES) lines.push(`Found ${MAX_MATCHES} matches.`);
  if (args.include_dirs) lines.push('Folders are not listed, only files: the folders that hold these files are in their paths.');
  const filteredLine = filteredNote(filtered.map((p) => root.show(absolute(p))));
  if (filteredLine) lines.push(filteredLine);
  if (denied.length) lines.push(deniedNote(denied));
  if (result.timedOut) lines.push(`Listing timed out after ${RG_TIMEOUT_MS / 1000} s: the list is partial.`);
  else if (result.exitCode === 2) lines.push(`Some folders could not be read: ${result.stderr.trim().split('\n').slice(0, 3).join('; ')}`);
  lines.push(...shown);
  if (sorted.length > MAX_MATCHES) lines.push(`[Truncated at ${MAX_MATCHES} matches — use a more specific pattern or path]`);
  return { output: lines.join('\n'), display: { kind: 'file_list', files: shown, total: sorted.length } };
}

async function resolve(args: GlobArgs, env: ToolEnv) {
  const { root: rootInput, pattern } = splitPattern(args);
  const root = await searchRoot(env, rootInput, 'directory');
  await checkRootReadable(env, root);
  return { root, pattern };
}

export function globTool(): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'Glob',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      const { root, pattern } = await resolve(args, env);
      return {
        accesses: access.searchTree(root.path.real),
        description: `Glob ${args.pattern}${args.path ? ` in ${root.path.display}` : ''}`,
        display: { kind: 'file_io', operation: 'glob', path: root.path.display, detail: pattern },
        approvalRule: exactRule('Glob', args.pattern),
        matchesRule: (argument) => matchGlobSubject(argument, args.pattern),
        readOnly: true,
        execute: (ctx) => asToolError(() => list(pattern, args, root, env, ctx.signal)),
      };
    },
  });
}
