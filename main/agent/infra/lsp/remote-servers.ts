import type { Environment } from '#contract/environment';
import { ON_PATH, PYRIGHT_SETTINGS, type ServerSpec, TS_LANGUAGES } from './server-specs';

/** What the probe looks for on the other machine, one `name=path` line each when found. */
const PROBE = [
  'ws="$1"',
  'if [ -x "$ws/node_modules/.bin/typescript-language-server" ]; then echo "typescript-language-server=$ws/node_modules/.bin/typescript-language-server"',
  'elif p=$(command -v typescript-language-server 2>/dev/null); then echo "typescript-language-server=$p"; fi',
  'if [ -f "$ws/node_modules/typescript/lib/tsserver.js" ]; then echo "tsserver=$ws/node_modules/typescript/lib/tsserver.js"; fi',
  `for prog in pyright-langserver ${ON_PATH.map((e) => e.program).join(' ')}; do if p=$(command -v "$prog" 2>/dev/null); then echo "$prog=$p"; fi; done`,
  'exit 0',
].join('\n');

const PROBE_TIMEOUT_MS = 20_000;

/** The servers found on the workspace's machine, and for the languages without one what to install there. */
export interface RemoteServers {
  list: ServerSpec[];
  /** By language family (`typescript`, `javascript`, `python`): what to install on which host. */
  missing: Map<string, string>;
}

/** Run the probe there (one exec): `name=path` lines of what was found. */
async function probe(environment: Environment, workspace: string): Promise<Map<string, string>> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const child = environment.exec({ file: 'sh', args: ['-c', PROBE, 'sh', workspace], cwd: workspace, signal: controller.signal });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.resume();
    const exit = await child.exit;
    if (exit.error) throw new Error(`could not look for language servers on ${environment.label}: ${exit.error.message}`);
    const found = new Map<string, string>();
    for (const line of out.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0 && line.slice(at + 1).startsWith('/')) found.set(line.slice(0, at), line.slice(at + 1));
    }
    return found;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The language servers of a workspace on another machine, looked for there — nothing of this machine's is assumed to
 * exist on it: TypeScript/JavaScript by the workspace's own `node_modules/.bin/typescript-language-server` (with its
 * `typescript`), else the one on the PATH there; Python by `pyright-langserver` on the PATH there; gopls,
 * rust-analyzer and clangd on the PATH there.
 */
export async function remoteBuiltinServers(environment: Environment, workspace: string): Promise<RemoteServers> {
  const found = await probe(environment, workspace);
  const list: ServerSpec[] = [];
  const missing = new Map<string, string>();
  const host = environment.label;
  const tsls = found.get('typescript-language-server');
  if (tsls) {
    const tsserver = found.get('tsserver');
    list.push({
      id: 'typescript',
      languages: TS_LANGUAGES,
      argv: [tsls, '--stdio'],
      initializationOptions: { ...(tsserver ? { tsserver: { path: tsserver } } : {}), disableAutomaticTypingAcquisition: true, hostInfo: 'deft' },
      pull: 'tsserver',
      source: 'builtin',
    });
  } else {
    const text =
      `No TypeScript/JavaScript language server on ${host}: neither ${workspace}/node_modules/.bin/typescript-language-server nor ` +
      `typescript-language-server on its PATH. Install it there, e.g. \`npm install --save-dev typescript-language-server typescript\` in the ` +
      `workspace, or \`npm install -g typescript-language-server typescript\` for the remote user (it needs Node.js on ${host}).`;
    missing.set('typescript', text);
    missing.set('javascript', text);
  }
  const pyright = found.get('pyright-langserver');
  if (pyright)
    list.push({
      id: 'pyright',
      languages: ['python'],
      argv: [pyright, '--stdio'],
      settings: PYRIGHT_SETTINGS,
      source: 'builtin',
    });
  else
    missing.set(
      'python',
      `No Python language server on ${host}: pyright-langserver is not on its PATH. Install it there, e.g. \`npm install -g pyright\` or \`pip install pyright\`.`,
    );
  for (const entry of ON_PATH) {
    const program = found.get(entry.program);
    if (program) list.push({ id: entry.id, languages: entry.languages, argv: [program, ...entry.args], source: 'builtin' });
  }
  return { list, missing };
}
