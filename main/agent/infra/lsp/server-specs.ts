import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { isExecutable } from '../platform/executable';

/** One language server Deft may start: what it serves and how it is run. */
export interface ServerSpec {
  /** Stable name: `typescript`, `pyright`, `gopls`, … or the user's name for it in settings. */
  id: string;
  /** Language ids (languages.ts) whose files it serves. */
  languages: readonly string[];
  /** Extra files it serves, as globs relative to the workspace (user-configured servers). */
  globs?: readonly string[];
  /** The program and its arguments (argv[0] absolute or looked up on the user's PATH). */
  argv: readonly string[];
  /** Variables the server needs beyond the scrubbed environment. */
  env?: Readonly<Record<string, string>>;
  initializationOptions?: unknown;
  /** What the server is told when it asks for its configuration (`workspace/configuration`), by section. */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * How a file's diagnostics are asked for when they are needed now: `tsserver` through typescript-language-server's
   * `typescript.tsserverRequest` (its published diagnostics say neither which version they are for nor when they are
   * complete); otherwise LSP's pull request when the server offers it, else the published ones.
   */
  pull?: 'tsserver';
  source: 'builtin' | 'user';
}

/** A user's `lsp.servers` entry, as read from the settings (checked by `userServers`). */
export interface UserServerEntry {
  command?: unknown;
  args?: unknown;
  languages?: unknown;
  globs?: unknown;
  initializationOptions?: unknown;
  settings?: unknown;
  env?: unknown;
}

const ownRequire = createRequire(import.meta.url);

/** A file of a package Deft itself installs, or null (e.g. a build without its dev dependencies). */
export function ownPackageFile(specifier: string): string | null {
  try {
    return ownRequire.resolve(specifier);
  } catch {
    return null;
  }
}

/** How to run a Node script: this Node, or Electron's binary acting as Node. */
export function nodeRunner(): { argv: string[]; env: Record<string, string> } {
  return { argv: [process.execPath], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/**
 * A program on the user's PATH, never one the workspace provides: relative entries (they mean the working folder,
 * e.g. `node_modules/.bin`) and folders inside the workspace are skipped.
 */
export function findOnPath(program: string, workspace: string, path = process.env.PATH ?? ''): string | null {
  const root = resolve(workspace);
  for (const entry of path.split(delimiter)) {
    if (!entry || !isAbsolute(entry)) continue;
    const dir = resolve(entry);
    if (dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep)) continue;
    const candidate = join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

export const TS_LANGUAGES = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'];

/** The TypeScript server: the workspace's own `typescript` when it has one (folders are trusted before any server starts), else Deft's. */
function typescriptServer(workspace: string): ServerSpec | null {
  const cli = ownPackageFile('typescript-language-server/lib/cli.mjs');
  if (!cli) return null;
  const own = join(workspace, 'node_modules', 'typescript', 'lib', 'tsserver.js');
  const tsserver = existsSync(own) ? own : ownPackageFile('typescript/lib/tsserver.js');
  const node = nodeRunner();
  return {
    id: 'typescript',
    languages: TS_LANGUAGES,
    argv: [...node.argv, cli, '--stdio'],
    env: node.env,
    // No automatic typings download: a language server never reaches the network.
    initializationOptions: { ...(tsserver ? { tsserver: { path: tsserver } } : {}), disableAutomaticTypingAcquisition: true, hostInfo: 'deft' },
    pull: 'tsserver',
    source: 'builtin',
  };
}

function pyrightServer(workspace: string): ServerSpec | null {
  const script = ownPackageFile('pyright/langserver.index.js');
  const node = nodeRunner();
  const onPath = script ? null : findOnPath('pyright-langserver', workspace);
  if (!script && !onPath) return null;
  return {
    id: 'pyright',
    languages: ['python'],
    argv: script ? [...node.argv, script, '--stdio'] : [onPath!, '--stdio'],
    env: script ? node.env : {},
    settings: PYRIGHT_SETTINGS,
    source: 'builtin',
  };
}

/** What pyright is told when it asks for its configuration. */
export const PYRIGHT_SETTINGS = { python: { analysis: { autoSearchPaths: true, diagnosticMode: 'openFilesOnly', useLibraryCodeForTypes: true } } };

/** Servers found on the user's PATH when installed. */
export const ON_PATH: ReadonlyArray<{ id: string; program: string; args: string[]; languages: string[] }> = [
  { id: 'gopls', program: 'gopls', args: [], languages: ['go'] },
  { id: 'rust-analyzer', program: 'rust-analyzer', args: [], languages: ['rust'] },
  { id: 'clangd', program: 'clangd', args: ['--background-index=false'], languages: ['c', 'cpp'] },
];

/** The servers Deft knows without configuration, in the order they are preferred. */
export function builtinServers(workspace: string, path?: string): ServerSpec[] {
  const found: ServerSpec[] = [];
  const ts = typescriptServer(workspace);
  if (ts) found.push(ts);
  const py = pyrightServer(workspace);
  if (py) found.push(py);
  for (const entry of ON_PATH) {
    const program = findOnPath(entry.program, workspace, path);
    if (program) found.push({ id: entry.id, languages: entry.languages, argv: [program, ...entry.args], source: 'builtin' });
  }
  return found;
}

const strings = (value: unknown): string[] | null => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null);

/**
 * The user's servers (`lsp.servers` in Deft's own settings — never a workspace's): each one checked, with one readable
 * problem per entry that cannot be used. Programs are looked up on this machine's PATH, or by `resolve` (a remote
 * workspace's servers run there as given: the PATH there finds them).
 */
export function userServers(
  raw: unknown,
  workspace: string,
  path?: string,
  resolve?: (program: string) => string | null,
): { servers: ServerSpec[]; problems: string[] } {
  const servers: ServerSpec[] = [];
  const problems: string[] = [];
  if (raw === undefined) return { servers, problems };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { servers, problems: ['"lsp.servers" must be an object of named servers.'] };
  for (const [id, value] of Object.entries(raw as Record<string, UserServerEntry>)) {
    const where = `"lsp.servers.${id}"`;
    if (!value || typeof value !== 'object') {
      problems.push(`${where} must be an object with "command".`);
      continue;
    }
    const command = typeof value.command === 'string' ? [value.command] : strings(value.command);
    const args = value.args === undefined ? [] : strings(value.args);
    const languages = value.languages === undefined ? [] : strings(value.languages);
    const globs = value.globs === undefined ? [] : strings(value.globs);
    if (!command?.length || !command[0]) {
      problems.push(`${where}.command must be a program name or an array of strings.`);
      continue;
    }
    if (!args || !languages || !globs) {
      problems.push(`${where}: "args", "languages" and "globs" must be arrays of strings.`);
      continue;
    }
    if (!languages.length && !globs.length) {
      problems.push(`${where} serves nothing: give "languages" (e.g. ["go"]) or "globs" (e.g. ["**/*.zig"]).`);
      continue;
    }
    const program = command[0];
    const resolved = resolve
      ? resolve(program)
      : isAbsolute(program)
        ? isExecutable(program)
          ? program
          : null
        : program.includes('/')
          ? null
          : findOnPath(program, workspace, path);
    if (!resolved) {
      problems.push(`${where}: "${program}" was not found (give an absolute path, or a program on your PATH outside the workspace).`);
      continue;
    }
    const env =
      value.env && typeof value.env === 'object'
        ? Object.fromEntries(Object.entries(value.env).filter((e): e is [string, string] => typeof e[1] === 'string'))
        : {};
    const settings = value.settings && typeof value.settings === 'object' ? (value.settings as Record<string, unknown>) : undefined;
    servers.push({
      id,
      languages,
      globs,
      argv: [resolved, ...command.slice(1), ...args],
      env,
      ...(value.initializationOptions !== undefined ? { initializationOptions: value.initializationOptions } : {}),
      ...(settings ? { settings } : {}),
      source: 'user',
    });
  }
  return { servers, problems };
}
