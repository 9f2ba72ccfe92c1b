import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { DocumentSymbol, Hover, Location, LocationLink, SymbolInformation } from 'vscode-languageserver-protocol/node';
import type { CodeLocation, CodeProblem } from '#protocol';
import { type Tool, type ToolEnv, type ToolResult, ToolInputError, access, defineTool, errorResult } from '#contract/tool';
import type { LanguageClient } from '#infra/lsp/client';
import { fileUri } from '#infra/lsp/uri';
import { problemLine, problemsOf } from '#infra/lsp/diagnostics';
import { guardPath } from '#infra/policies/path-guard';
import { displayPath } from '../../code-checks';
import description from './lsp.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const OPERATIONS = ['definition', 'references', 'hover', 'document_symbols', 'workspace_symbols', 'diagnostics'] as const;
const input = toolInput('LSP', () =>
  z.object({
    operation: z.enum(OPERATIONS).describe('What to ask the language server.'),
    path: z.string().optional().describe('The file: relative to the workspace, or absolute.'),
    line: z.number().int().min(1).optional().describe('1-based line of the symbol.'),
    column: z.number().int().min(1).optional().describe('1-based column of the symbol on that line.'),
    symbol: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('A symbol name: the query for workspace_symbols, or what to look for in `path` instead of a column.'),
  }),
);
type LspArgs = z.output<SchemaOf<typeof input>>;

/** What the tool needs of the capability: a running client for a file or any running server, and the settings. */
export interface LspToolDeps {
  /** The client serving a file (starting its server); a reason when there is none. */
  clientFor(path: string): Promise<{ client: LanguageClient } | { client: null; reason: string }>;
  /** The clients for the workspace's languages (starting them when a file of theirs is known), for workspace-wide questions. */
  workspaceClients(): Promise<LanguageClient[]>;
  warnings(): Promise<boolean>;
}

const REQUEST_MS = 30_000;
const MAX_LOCATIONS = 100;
const SYMBOL_KINDS: Readonly<Record<number, string>> = {
  1: 'file',
  2: 'module',
  3: 'namespace',
  4: 'package',
  5: 'class',
  6: 'method',
  7: 'property',
  8: 'field',
  9: 'constructor',
  10: 'enum',
  11: 'interface',
  12: 'function',
  13: 'variable',
  14: 'constant',
  22: 'enum member',
  23: 'struct',
  26: 'type parameter',
};

const wordChar = /[\p{L}\p{N}_$]/u;

/** The first whole-word occurrence of `symbol` at or after `fromLine` (1-based), as a 0-based position. */
export function findSymbol(text: string, symbol: string, fromLine = 1): { line: number; character: number } | null {
  const lines = text.split('\n');
  for (let i = Math.max(0, fromLine - 1); i < lines.length; i++) {
    const line = lines[i]!;
    for (let at = line.indexOf(symbol); at !== -1; at = line.indexOf(symbol, at + 1)) {
      const before = at > 0 ? line[at - 1]! : '';
      const after = line[at + symbol.length] ?? '';
      if (!(before && wordChar.test(before)) && !(after && wordChar.test(after))) return { line: i, character: at };
    }
  }
  return null;
}

function asLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) => ('targetUri' in l ? { uri: l.targetUri, range: l.targetSelectionRange } : l));
}

function hoverText(hover: Hover | null): string {
  if (!hover) return '';
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  return parts
    .map((p) => (typeof p === 'string' ? p : p.value))
    .join('\n\n')
    .trim();
}

function pathOf(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

export function lspTool(deps: LspToolDeps): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'LSP',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      const needsPosition = args.operation === 'definition' || args.operation === 'references' || args.operation === 'hover';
      if ((needsPosition || args.operation === 'document_symbols') && !args.path)
        throw new ToolInputError(`${args.operation} needs \`path\` (and a position: line + column, or symbol).`);
      if (needsPosition && !args.symbol && (args.line === undefined || args.column === undefined))
        throw new ToolInputError(`${args.operation} needs a position: line and column (1-based), or \`symbol\` (a name to find in the file).`);
      if (args.operation === 'workspace_symbols' && !args.symbol)
        throw new ToolInputError('workspace_symbols needs `symbol`: the name (or part of it) to look for.');
      const path = args.path
        ? await guardPath(args.path, 'read', { environment: env.environment, workspace: env.workspace, extraRoots: env.extraRoots, deftHome: env.home })
        : null;
      if (path && env.readDenials) {
        const rule = (await env.readDenials())(path.real);
        if (rule) throw new ToolInputError(`${path.display} is hidden from reading by the rule ${rule}.`);
      }
      const where = path
        ? `${path.display}${args.line ? `:${args.line}${args.column ? `:${args.column}` : ''}` : ''}${args.symbol ? ` (${args.symbol})` : ''}`
        : `symbol ${args.symbol ?? '*'}`;
      return {
        accesses: path ? access.readFile(path.real) : access.readTree(env.workspace),
        description: `LSP ${args.operation} ${where}`,
        display: { kind: 'generic', summary: `${args.operation.replace('_', ' ')} — ${where}` },
        approvalRule: 'LSP',
        readOnly: true,
        execute: async (ctx) => {
          try {
            return await run(args, path?.real ?? null, where, env, deps, ctx.signal);
          } catch (error) {
            if (error instanceof ToolInputError) return errorResult(error.message);
            return errorResult(`The language server could not answer: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
      };
    },
  });
}

async function run(args: LspArgs, path: string | null, target: string, env: ToolEnv, deps: LspToolDeps, signal: AbortSignal): Promise<ToolResult> {
  const denied = env.readDenials ? await env.readDenials() : () => null;
  const show = (p: string) => displayPath(env.workspace, p);
  const toLocation = (uri: string, line: number, character: number, label?: string): CodeLocation => ({
    path: show(pathOf(uri)),
    line: line + 1,
    column: character + 1,
    ...(label ? { label } : {}),
  });
  const visible = (uri: string) => !denied(pathOf(uri));

  if (args.operation === 'workspace_symbols' || (args.operation === 'diagnostics' && !path)) {
    const clients = await deps.workspaceClients();
    if (!clients.length) throw new ToolInputError('No language server runs for this workspace yet: give `path` (a file of the language) so its server starts.');
    if (args.operation === 'diagnostics') {
      const warnings = await deps.warnings();
      const problems: Array<CodeProblem & { path: string }> = [];
      for (const client of clients)
        for (const { uri, diagnostics } of client.allDiagnostics())
          if (visible(uri)) for (const p of problemsOf(diagnostics, warnings)) problems.push({ ...p, path: show(pathOf(uri)) });
      const lines = problems.slice(0, MAX_LOCATIONS).map((p) => problemLine(p.path, p));
      const output = problems.length
        ? `${problems.length} problem${problems.length === 1 ? '' : 's'} in the files the servers have checked (those read or edited this session):\n${lines.join('\n')}`
        : 'No errors in the files the language servers have checked (those read or edited this session).';
      return {
        output,
        display: {
          kind: 'code_result',
          operation: 'diagnostics',
          target: 'workspace',
          server: clients.map((c) => c.spec.id).join(', '),
          problems: problems.slice(0, MAX_LOCATIONS),
          total: problems.length,
        },
      };
    }
    const found: CodeLocation[] = [];
    for (const client of clients) {
      const symbols = await client.request<SymbolInformation[] | null>('workspace/symbol', { query: args.symbol }, REQUEST_MS, signal);
      for (const s of symbols ?? [])
        if (visible(s.location.uri))
          found.push(
            toLocation(
              s.location.uri,
              s.location.range.start.line,
              s.location.range.start.character,
              `${SYMBOL_KINDS[s.kind] ?? 'symbol'} ${s.name}${s.containerName ? ` in ${s.containerName}` : ''}`,
            ),
          );
    }
    return locationsResult(args.operation, target, clients.map((c) => c.spec.id).join(', '), found, `No symbol matching "${args.symbol}" in the workspace.`);
  }

  const file = path!;
  const got = await deps.clientFor(file);
  if (!got.client) throw new ToolInputError(got.reason);
  const client = got.client;
  // Read on the workspace's machine (a remote folder's file is there, at the same path the server knows it by).
  const text = await env.environment.readText(file).catch(() => null);
  if (text === null) throw new ToolInputError(`${show(file)} could not be read.`);
  await client.sync(file, text);
  const uri = fileUri(file);
  const server = client.spec.id;

  if (args.operation === 'diagnostics') {
    const diagnostics = (await client.currentDiagnostics(file, Date.now() + REQUEST_MS)) ?? [];
    const problems = problemsOf(diagnostics, await deps.warnings()).map((p) => ({ ...p, path: show(file) }));
    const output = problems.length ? problems.map((p) => problemLine(p.path, p)).join('\n') : `No errors in ${show(file)}.`;
    return {
      output,
      display: { kind: 'code_result', operation: 'diagnostics', target, server, problems: problems.slice(0, MAX_LOCATIONS), total: problems.length },
    };
  }
  if (args.operation === 'document_symbols') {
    const symbols = await client.request<Array<DocumentSymbol | SymbolInformation> | null>(
      'textDocument/documentSymbol',
      { textDocument: { uri } },
      REQUEST_MS,
      signal,
    );
    const found: CodeLocation[] = [];
    const walk = (list: DocumentSymbol[], depth: number) => {
      for (const s of list) {
        found.push({
          ...toLocation(
            uri,
            s.selectionRange.start.line,
            s.selectionRange.start.character,
            `${'  '.repeat(depth)}${SYMBOL_KINDS[s.kind] ?? 'symbol'} ${s.name}`,
          ),
        });
        if (s.children?.length && depth < 3) walk(s.children, depth + 1);
      }
    };
    for (const s of symbols ?? []) {
      if ('location' in s)
        found.push(toLocation(s.location.uri, s.location.range.start.line, s.location.range.start.character, `${SYMBOL_KINDS[s.kind] ?? 'symbol'} ${s.name}`));
      else walk([s], 0);
    }
    return locationsResult(args.operation, target, server, found, `${show(file)} has no symbols.`);
  }

  const position = args.symbol && args.column === undefined ? findSymbol(text, args.symbol, args.line) : { line: args.line! - 1, character: args.column! - 1 };
  if (!position)
    throw new ToolInputError(`"${args.symbol}" does not occur as a whole word in ${show(file)}${args.line ? ` at or after line ${args.line}` : ''}.`);
  const params = { textDocument: { uri }, position };
  if (args.operation === 'hover') {
    const hover = hoverText(await client.request<Hover | null>('textDocument/hover', params, REQUEST_MS, signal));
    const capped = hover.length > 4_000 ? `${hover.slice(0, 4_000)}…` : hover;
    return {
      output: capped || 'The server has nothing to say about this position.',
      display: { kind: 'code_result', operation: 'hover', target, server, text: capped },
    };
  }
  const method = args.operation === 'definition' ? 'textDocument/definition' : 'textDocument/references';
  const result = await client.request<Location | Location[] | LocationLink[] | null>(
    method,
    args.operation === 'references' ? { ...params, context: { includeDeclaration: true } } : params,
    REQUEST_MS,
    signal,
  );
  const locations = asLocations(result).filter((l) => visible(l.uri));
  const texts = new Map<string, string[]>();
  const lineText = async (uri: string, line: number) => {
    if (!texts.has(uri)) texts.set(uri, (await env.environment.readText(pathOf(uri)).catch(() => '')).split('\n'));
    return texts.get(uri)![line]?.trim().slice(0, 160);
  };
  const found: CodeLocation[] = [];
  for (const l of locations.slice(0, MAX_LOCATIONS))
    found.push(toLocation(l.uri, l.range.start.line, l.range.start.character, await lineText(l.uri, l.range.start.line)));
  return locationsResult(
    args.operation,
    target,
    server,
    found,
    args.operation === 'definition' ? 'The server found no definition at this position.' : 'The server found no references at this position.',
    locations.length,
  );
}

function locationsResult(operation: string, target: string, server: string, found: CodeLocation[], none: string, total = found.length): ToolResult {
  if (!found.length) return { output: none, display: { kind: 'code_result', operation, target, server, locations: [], total: 0 } };
  const shown = found.slice(0, MAX_LOCATIONS);
  const lines = shown.map((l) => `${l.path}:${l.line}:${l.column}${l.label ? `  ${l.label}` : ''}`);
  if (total > shown.length) lines.push(`… and ${total - shown.length} more.`);
  return { output: lines.join('\n'), display: { kind: 'code_result', operation, target, server, locations: shown, total } };
}
