import { join } from 'node:path';
import type { NetworkPolicy, WorkspaceSandbox } from '#contract/sandbox';
import type { ServerLauncher } from '#infra/lsp/process';

/** A language server has no business on the network: every connection the settings do not allow is refused. */
const noNetwork: NetworkPolicy = async () => ({ allowed: false, reason: 'Language servers do not reach the network.' });

/**
 * Starts a language server in the OS sandbox where there is one (as commands run: the workspace and a temp folder
 * writable, credential stores hidden, no network), always with the scrubbed environment (no API keys, no Deft
 * variables); its caches go to the temp folder, never the user's own.
 */
export function sandboxedServerLauncher(sandbox: Pick<WorkspaceSandbox, 'plan'>): ServerLauncher {
  return async (spec, cwd) => {
    const plan = await sandbox.plan({
      argv: spec.argv,
      cwd,
      label: `language server ${spec.id}`,
      ...(spec.env ? { env: { ...spec.env } } : {}),
      network: noNetwork,
    });
    const tmp = plan.env.TMPDIR;
    const env = { ...plan.env, ...(tmp ? { XDG_CACHE_HOME: join(tmp, 'lsp-cache', spec.id) } : {}) };
    return { file: plan.file, args: plan.args, env, cwd: plan.cwd, sandboxed: plan.sandboxed, release: () => plan.release() };
  };
}
