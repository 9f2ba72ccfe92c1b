import type { Environment } from '#contract/environment';
import type { WorkspaceSandbox } from '#contract/sandbox';
import type { ServerStarter } from './process';

/**
 * Runs before the server on the other machine: the login environment there minus Deft's own variables and anything
 * named like a credential (the scrubbed environment, as for a server here), then becomes the server.
 */
const SCRUB = [
  'for name in $(env | sed -n "s/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p"); do',
  '  case "$name" in DEFT_*|*_API_KEY|*_AUTH_TOKEN|*_TOKEN|*_SECRET|*_SECRET_*|*PASSWORD*|SSH_AUTH_SOCK|GIT_CONFIG*|GIT_DIR|GIT_WORK_TREE) unset "$name";; esac',
  'done',
  'exec "$@"',
].join('\n');

/**
 * Starts a language server on the workspace's machine through its Environment's exec (for a remote folder: an SSH exec
 * channel), in the workspace there, its program looked up on the PATH there, inside that machine's OS sandbox when it
 * has one (`sandbox`: bubblewrap there), only once the folder is trusted (the capability's rule).
 * Stopping it ends its whole process tree there.
 */
export function environmentServerStarter(environment: Environment, sandbox?: Pick<WorkspaceSandbox, 'plan'>): ServerStarter {
  return async (spec, cwd) => {
    const [program, ...args] = spec.argv;
    if (!program) throw new Error(`${spec.id} has no command.`);
    const argv = ['sh', '-c', SCRUB, 'sh', program, ...args];
    const env = { NO_COLOR: '1', ...spec.env };
    // In the sandbox there when the machine has one (as its commands run: the workspace writable, secrets hidden, no
    // network), its caches in the sandbox's temp folder.
    const plan = sandbox
      ? await sandbox.plan({
          argv,
          cwd,
          label: `language server ${spec.id}`,
          env,
          network: async () => ({ allowed: false, reason: 'Language servers do not reach the network.' }),
        })
      : null;
    const cache: Record<string, string> =
      plan?.sandboxed && plan.env.TMPDIR ? { XDG_CACHE_HOME: environment.path.join(plan.env.TMPDIR, 'lsp-cache', spec.id) } : {};
    const child = environment.exec(
      plan
        ? // Its `env` is set inside the sandbox by the plan; only Deft's variables start the wrapper there.
          { file: plan.file, args: plan.args, cwd: plan.cwd, env: { ...plan.env, ...cache }, stdin: 'pipe' }
        : { file: argv[0]!, args: argv.slice(1), cwd, env, stdin: 'pipe' },
    );
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', () => {});
    await child.started;
    if (child.pid === undefined || !child.stdin) {
      const exit = await child.exit;
      plan?.release();
      throw new Error(`${spec.id} could not be started on ${environment.label}: ${exit.error?.message ?? 'no process'}`);
    }
    let killed = false;
    const exited = child.exit.then((exit) => {
      plan?.release();
      return { code: exit.code, signal: exit.signal };
    });
    return {
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      pid: child.pid,
      sandboxed: plan?.sandboxed ?? false,
      // Deft's pid names nothing on that machine.
      clientPid: null,
      exited,
      kill: (graceMs = 2_000) => {
        if (killed) return;
        killed = true;
        void child.kill(graceMs).catch(() => {});
      },
    };
  };
}
