import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { MtimeIndex, newestFirst } from '../../newest-first';
import { RG_MAX_BYTES, RG_TIMEOUT_MS, commonArgs, completeRecords, exclusionArgs, runRipgrep } from '../../ripgrep';
import { type SearchRoot, checkRootReadable, deniedNote, filteredNote, hiddenFiles, searchRoot, withoutSensitive } from '../../search-root';
import { asToolError } from '../../tool-support';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import type { ToolResultDisplay } from '#protocol';
import { type Tool, type ToolEnv, type ToolResult, ToolInputError, access, defineTool } from '#contract/tool';
import description from './grep.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

export const DEFAULT_HEAD_LIMIT = 250;
/** Display rows sent to the window at most (the model's page is separate). */
const MAX_DISPLAY_MATCHES = 1_000;

const input = toolInput('Grep', () => {
  const count = z.number().int().min(0);
  return z.object({
    pattern: z.string().min(1).describe('Regular expression (ripgrep syntax) to search for.'),
    path: z.string().optional().describe('Folder or file to search (relative to the workspace, or absolute). Default: the workspace.'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
    type: z.string().optional().describe('Only search this ripgrep file type, e.g. "js", "py", "rust".'),
    output_mode: z
      .enum(['files_with_matches', 'content', 'count_matches'])
      .default('files_with_matches')
      .describe('What to return. Default files_with_matches.'),
    '-i': z.boolean().default(false).describe('Ignore case.'),
    '-n': z.boolean().default(true).describe('Show line numbers (content mode). Default true.'),
    '-A': count.optional().describe('Lines of context after each match (content mode).'),
    '-B': count.optional().describe('Lines of context before each match (content mode).'),
    '-C': count.optional().describe('Lines of context before and after each match (content mode; wins over -A/-B).'),
    head_limit: count.default(DEFAULT_HEAD_LIMIT).describe(`Lines of results per page. Default ${DEFAULT_HEAD_LIMIT}; 0 for no limit.`),
    offset: count.default(0).describe('Skip this many result lines (for the next page).'),
    multiline: z.boolean().default(false).describe('Let the pattern span lines ("." also matches a line break).'),
    include_ignored: z.boolean().default(false).describe('Also search files ignored by .gitignore and similar (secret files stay excluded).'),
  });
});
type GrepArgs = z.output<SchemaOf<typeof input>>;

function rgArgs(args: GrepArgs, target: string[]): string[] {
  const out = [...commonArgs(), '--with-filename'];
  if (args['-i']) out.push('--ignore-case');
  if (args.multiline) out.push('--multiline', '--multiline-dotall');
  if (args.include_ignored) out.push('--no-ignore');
  if (args.output_mode === 'files_with_matches') out.push('--files-with-matches');
  // A NUL after each path tells it apart from the line that follows (paths may contain ':').
  else if (args.output_mode === 'count_matches') out.push('--null', '--count-matches', '--max-columns', '500');
  else {
    out.push('--null', '--max-columns', '2000', '--max-columns-preview');
    if (args['-n']) out.push('--line-number');
    if (args['-C'] !== undefined) out.push('--context', String(args['-C']));
    else {
      if (args['-A'] !== undefined) out.push('--after-context', String(args['-A']));
      if (args['-B'] !== undefined) out.push('--before-context', String(args['-B']));
    }
  }
  if (args.type) out.push('--type', args.type);
  if (args.glob) out.push('--glob', args.glob);
  out.push(...exclusionArgs(), '--regexp', args.pattern, '--', ...target);
  return out;
}

interface FileBlock {
  file: string;
  /** Content mode: rg's lines for this file (`12:text` match, `12-text` context, `--` gap); count mode: the count. */
  lines: string[];
}

/** Content/count output: `path\0rest` records, grouped by file in rg's order. */
function groupByFile(records: string[]): FileBlock[] {
  const blocks: FileBlock[] = [];
  let current: FileBlock | undefined;
  for (const record of records) {
    const nul = record.indexOf('\0');
    if (nul === -1) {
      // A context-group separator (`--`) belongs to the file being printed.
      if (current && record === '--') current.lines.push('--');
      continue;
    }
    const file = record.slice(0, nul);
    if (!current || current.file !== file) {
      current = { file, lines: [] };
      blocks.push(current);
    }
    current.lines.push(record.slice(nul + 1));
  }
  for (const block of blocks) while (block.lines.at(-1) === '--') block.lines.pop();
  return blocks;
}

/** `12:text` (match) / `12-text` (context), or plain text without line numbers. */
function parseContentLine(line: string, numbered: boolean): { line?: number; text: string; match: boolean } {
  if (!numbered) return { text: line, match: true };
  const m = /^(\d+)([:-])/.exec(line);
  if (!m) return { text: line, match: true };
  return { line: Number(m[1]), text: line.slice(m[0].length), match: m[2] === ':' };
}

function pageOf<T>(rows: T[], args: GrepArgs): { page: T[]; more: boolean } {
  const end = args.head_limit === 0 ? rows.length : args.offset + args.head_limit;
  return { page: rows.slice(args.offset, end), more: end < rows.length };
}

function pagingNote(shown: number, total: number, args: GrepArgs, unit: string): string {
  if (total === 0 || (args.offset === 0 && shown === total)) return '';
  if (shown === 0) return `offset=${args.offset} is past the end (${total} ${unit}).`;
  const next = args.offset + shown;
  return `Showing ${unit} ${args.offset + 1}-${next} of ${total}${next < total ? `; use offset=${next} to see more` : ''}.`;
}

async function search(args: GrepArgs, root: SearchRoot, env: ToolEnv, signal: AbortSignal, timeoutMs: number): Promise<ToolResult> {
  const isFile = root.stats.isFile();
  const cwd = isFile ? dirname(root.path.real) : root.path.real;
  const absolute = (file: string) => join(cwd, file);
  const filesMode = args.output_mode === 'files_with_matches';
  const times = new MtimeIndex(env.environment);
  const result = await runRipgrep(rgArgs(args, isFile ? [basename(root.path.real)] : []), {
    environment: env.environment,
    cwd,
    signal,
    timeoutMs,
    ...(filesMode ? { onLine: (line: string) => line && times.add(line, absolute(line)) } : {}),
  });
  if (signal.aborted) return { output: 'Grep was interrupted.', isError: true };
  if (result.exitCode === 2 && /No files were searched/.test(result.stderr)) {
    return {
      output: `No files were searched: nothing under ${root.path.display} passes the glob/type filters (${[args.glob, args.type].filter(Boolean).join(', ') || 'none'}). Loosen them.`,
      display: { kind: 'search_results', query: args.pattern, matches: [], total: 0 },
    };
  }
  if (result.exitCode !== null && result.exitCode > 1 && result.stdout.length === 0) {
    const detail = result.stderr.trim().split('\n').slice(0, 8).join('\n');
    throw new ToolInputError(
      `ripgrep failed (exit ${result.exitCode}): ${detail || 'no message'}. Check the pattern (ripgrep regex syntax: escape literal ( ) { } [ ]), the glob and the type.`,
    );
  }
  if (result.timedOut && result.stdout.length === 0) {
    throw new ToolInputError(`Grep timed out after ${timeoutMs / 1000} s without finding anything. Narrow the search with path, glob or type.`);
  }
  const warnings: string[] = [];
  const notice = env.environment.takeSearchNotice?.();
  if (notice) warnings.push(notice);
  if (result.timedOut) warnings.push(`The search timed out after ${timeoutMs / 1000} s: results are partial. Narrow it with path, glob or type.`);
  if (result.capped)
    warnings.push(`The search produced more than ${RG_MAX_BYTES / 1024 / 1024} MiB of output and was stopped: results are partial. Narrow it.`);
  if (result.exitCode === 2) warnings.push(`Some files could not be searched: ${result.stderr.trim().split('\n').slice(0, 3).join('; ')}`);
  const show = (file: string) => root.show(absolute(file));
  const query = args.pattern;

  if (args.output_mode === 'files_with_matches') {
    const files = completeRecords(result.stdout).filter(Boolean);
    const hidden = await hiddenFiles(env, files.map(absolute));
    const { filtered, denied } = withoutSensitive(files, absolute, hidden);
    const sorted = await times.newestFirst((f) => !hidden.reason(absolute(f)));
    const { page } = pageOf(sorted, args);
    const header = sorted.length ? `Found ${sorted.length} file${sorted.length === 1 ? '' : 's'} (newest first).` : 'No matches found.';
    const notes = [header, pagingNote(page.length, sorted.length, args, 'files'), filteredNote(filtered.map(show)), deniedNote(denied), ...warnings].filter(
      Boolean,
    );
    const display: ToolResultDisplay = {
      kind: 'search_results',
      query,
      matches: page.slice(0, MAX_DISPLAY_MATCHES).map((f) => ({ file: show(f) })),
      total: sorted.length,
    };
    return { output: [...notes, ...page.map(show)].join('\n'), display };
  }

  const blocks = groupByFile(completeRecords(result.stdout));
  const hidden = await hiddenFiles(
    env,
    blocks.map((b) => absolute(b.file)),
    { deep: args.output_mode === 'content' },
  );
  const { kept, filtered, denied } = withoutSensitive(blocks, (b) => absolute(b.file), hidden);
  const sorted = await newestFirst(env.environment, kept, (b) => absolute(b.file));

  if (args.output_mode === 'count_matches') {
    const counts = sorted.map((b) => ({ file: show(b.file), count: Number(b.lines[0] ?? 0) }));
    const total = counts.reduce((sum, c) => sum + c.count, 0);
    const { page } = pageOf(counts, args);
    const header = counts.length ? `Found ${total} total occurrences across ${counts.length} file${counts.length === 1 ? '' : 's'}.` : 'No matches found.';
    const notes = [
      header,
      pagingNote(page.length, counts.length, args, 'files'),
      filteredNote(filtered.map((b) => show(b.file))),
      deniedNote(denied),
      ...warnings,
    ].filter(Boolean);
    const display: ToolResultDisplay = {
      kind: 'search_results',
      query,
      matches: page.slice(0, MAX_DISPLAY_MATCHES).map((c) => ({ file: c.file, text: `${c.count} match${c.count === 1 ? '' : 'es'}` })),
      total,
    };
    return { output: [...notes, ...page.map((c) => `${c.file}:${c.count}`)].join('\n'), display };
  }

  const numbered = args['-n'];
  const rows: { file: string; raw: string; parsed: ReturnType<typeof parseContentLine> | null }[] = [];
  for (const block of sorted) {
    const file = show(block.file);
    for (const raw of block.lines) rows.push({ file, raw, parsed: raw === '--' ? null : parseContentLine(raw, numbered) });
  }
  const matchLines = rows.filter((r) => r.parsed?.match).length;
  const { page } = pageOf(rows, args);
  const header = rows.length
    ? `Found ${matchLines} matching line${matchLines === 1 ? '' : 's'} in ${sorted.length} file${sorted.length === 1 ? '' : 's'}.`
    : 'No matches found.';
  const notes = [
    header,
    pagingNote(page.length, rows.length, args, 'lines'),
    filteredNote(filtered.map((b) => show(b.file))),
    deniedNote(denied),
    ...warnings,
  ].filter(Boolean);
  const format = (r: (typeof rows)[number]) => {
    if (!r.parsed) return '--';
    const sep = r.parsed.match ? ':' : '-';
    return r.parsed.line !== undefined ? `${r.file}${sep}${r.parsed.line}${sep}${r.parsed.text}` : `${r.file}${sep}${r.parsed.text}`;
  };
  const display: ToolResultDisplay = {
    kind: 'search_results',
    query,
    matches: page
      .filter((r) => r.parsed?.match)
      .slice(0, MAX_DISPLAY_MATCHES)
      .map((r) => ({ file: r.file, ...(r.parsed!.line !== undefined ? { line: r.parsed!.line } : {}), text: r.parsed!.text.slice(0, 500) })),
    total: matchLines,
  };
  return { output: [...notes, ...page.map(format)].join('\n'), display };
}

export function grepTool(options: { timeoutMs?: number } = {}): Tool<SchemaOf<typeof input>> {
  const timeoutMs = options.timeoutMs ?? RG_TIMEOUT_MS;
  return defineTool({
    name: 'Grep',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      const root = await searchRoot(env, args.path, 'any');
      await checkRootReadable(env, root);
      const where = args.path ? ` in ${root.path.display}` : '';
      return {
        accesses: access.searchTree(root.path.real),
        description: `Grep "${args.pattern}"${where}${args.glob ? ` (${args.glob})` : ''}`,
        display: { kind: 'search', query: args.pattern, scope: [root.path.display, args.glob, args.type].filter(Boolean).join(' · ') },
        approvalRule: exactRule('Grep', args.pattern),
        matchesRule: (argument) => matchGlobSubject(argument, args.pattern),
        readOnly: true,
        execute: (ctx) => asToolError(() => search(args, root, env, ctx.signal, timeoutMs)),
      };
    },
  });
}
