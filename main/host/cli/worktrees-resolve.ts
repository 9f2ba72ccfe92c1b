import { deliverHandoff, handoffWaiting } from '#infra/worktrees/deliver';
import { mergeInProgress } from '#infra/worktrees/handoff';
import { Worktrees } from '#infra/worktrees/worktrees';
import type { CliIo } from './io';
import { WORKTREES_USAGE } from './usage';
import { cliHome } from './worktrees-cli';

/** `deft run`'s flags that name another session, folder or prompt: resolve chooses those itself. */
const NOT_HERE = ['--session', '--continue', '--fork', '--at', '--fork-files', '--worktree', '--worktree-base', '--remote', '--input-format', '--json-schema'];

/**
 * `deft worktrees resolve NAME [--workspace DIR] [deft run's options]`: the conflict of merging a worktree, resolved
 * by its session, headless. The conflict is handed to the worktree as the window's *Resolve in that session* does
 * (the base branch merged into its branch there, the prompt posted to its newest session's mailbox) — unless a
 * handed conflict already waits there, which is taken as it is — then that session runs it as `deft run --mailbox`
 * (its turn takes the prompt from the mailbox: exactly once, as a window would). `run` is `deft run`'s entry.
 */
export async function runWorktreeResolve(argv: string[], io: CliIo, run: (argv: string[]) => Promise<number>): Promise<number> {
  const [, , name, ...rest] = argv;
  if (name === '--help' || name === '-h') {
    io.stdout(`${WORKTREES_USAGE}\n`);
    return 0;
  }
  if (!name || name.startsWith('-')) return usage(io, 'say which worktree: deft worktrees resolve NAME [deft run options]');
  const flags = [...rest];
  let from = io.cwd;
  const at = flags.findIndex((f) => f === '--workspace' || f.startsWith('--workspace='));
  if (at >= 0) {
    const flag = flags[at]!;
    const value = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : flags[at + 1];
    if (!value) return usage(io, '--workspace needs a folder');
    from = value;
    flags.splice(at, flag.includes('=') ? 1 : 2);
  }
  if (flags.some((f) => f.split('=')[0] === '--remote'))
    return usage(
      io,
      'resolve works on a folder on this machine: for a remote folder\'s worktree, merge its base branch there by hand, or run a session in it (deft run --remote HOST:/path/of/the/worktree "…"), then deft worktrees merge NAME --remote HOST:/path',
    );
  const refused = flags.find((f) => NOT_HERE.includes(f.split('=')[0]!));
  if (refused) return usage(io, `${refused.split('=')[0]} does not go with resolve: it runs the worktree's own session on what was handed to it`);
  try {
    const home = cliHome(io);
    const trees = await Worktrees.of(home, from);
    const record = await trees.get(name);
    let sessionId = await handoffWaiting(home, record);
    if (sessionId) {
      io.stderr(`deft: a conflict handed to ${name} waits for its session ${sessionId}: it resolves it now.\n`);
    } else {
      const handed = await trees.handConflict(name);
      if (handed.status === 'clean') {
        io.stdout(`${handed.baseBranch} merged into ${handed.branch} without a conflict (in the worktree). Next: deft worktrees merge ${name}\n`);
        return 0;
      }
      const sent = await deliverHandoff(home, record, handed.prompt);
      sessionId = sent.sessionId;
      io.stderr(
        `deft: merged ${handed.baseBranch} into ${handed.branch} in the worktree ${handed.path} (the main checkout is untouched); it conflicts in: ${handed.files.join(', ')}. Its session "${sent.title}" (${sent.sessionId}${sent.created ? ', new' : ''}) resolves it now.\n`,
      );
    }
    // A window that has the worktree open takes what is posted at once: then it runs there, not here.
    if ((await handoffWaiting(home, record)) !== sessionId) {
      io.stderr(`deft: the Deft window that has the worktree open took it: its session resolves it there. Then: deft worktrees merge ${name}\n`);
      return 0;
    }
    const code = await run(['run', '--workspace', record.path, '--session', sessionId, '--mailbox', ...flags]);
    const left = await mergeInProgress(trees.machine, record.path).catch(() => null);
    if (left === null) io.stderr(`deft: the merge in the worktree is committed. Next: deft worktrees merge ${name}\n`);
    else
      io.stderr(
        `deft: the merge in the worktree ${record.path} is not finished${left.length ? ` (still conflicted: ${left.join(', ')})` : ''}. Run deft worktrees resolve ${name} again, or finish it there by hand (git add, git commit --no-edit); then deft worktrees merge ${name}.\n`,
      );
    return code;
  } catch (error) {
    io.stderr(`deft: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`deft: ${message}\n\n${WORKTREES_USAGE}\n`);
  return 2;
}
