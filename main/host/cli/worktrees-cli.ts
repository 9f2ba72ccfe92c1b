import { parseArgs } from 'node:util';
import { deftHome } from '#infra/platform/home';
import { SessionStore } from '#infra/sessions/store';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { FileSecretStore } from '#infra/settings/secrets';
import { type AskModel, draftMergeMessage } from '#infra/worktrees/draft';
import { askModel } from '#runtime/ask-model';
import { ProviderSettings } from '#runtime/commands/settings-commands';
import { worktreeCopyGlobs } from '#infra/worktrees/settings';
import { type Created, type WorktreeState, Worktrees } from '#infra/worktrees/worktrees';
import { worktreesOf } from '#infra/worktrees/there';
import { workspacePlace } from '#infra/environment/workspace-place';
import { parseRemoteSpec, remoteFolderIdAt } from '#infra/environment/ssh/remote-spec';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { type CliIo, parseArgsOr } from './io';
import { WORKTREES_USAGE } from './usage';

class UsageError extends Error {}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      remote: { type: 'string' },
      json: { type: 'boolean', default: false },
      squash: { type: 'boolean', default: false },
      message: { type: 'string', short: 'm' },
      'draft-message': { type: 'boolean', default: false },
      'delete-branch': { type: 'boolean', default: false },
      base: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

const ACTIONS = ['list', 'create', 'merge', 'branch', 'apply', 'discard', 'cleanup'];

/** The home a CLI command uses: the tests' injected one, else `DEFT_HOME` or `~/.deft`. */
export function cliHome(io: CliIo): string {
  return io.coreOptions?.home ?? deftHome(io.env);
}

/** The worktrees of the repository of `from`: a folder here, or — with `remote` — the remote folder's, on its machine. */
function treesOf(home: string, from: string, remote?: RemoteFolder): Promise<Worktrees> {
  return remote ? worktreesOf(home, workspacePlace(remote.workspace, remote.environment, remote.id)) : Worktrees.of(home, from);
}

/**
 * A new worktree for `deft run --worktree`, with the `worktree.copy` globs; what was skipped is said on stderr. With
 * `remote`, made on that machine (under ~/.deft/worktrees there), from the remote folder's repository.
 */
export async function createRunWorktree(
  io: CliIo,
  from: string,
  options: { name?: string; base?: string; hint: string; remote?: RemoteFolder },
): Promise<Created> {
  const home = cliHome(io);
  const trees = await treesOf(home, from, options.remote);
  const created = await trees.create({
    ...(options.name ? { name: options.name } : { hint: options.hint }),
    ...(options.base ? { base: options.base } : {}),
    copy: await worktreeCopyGlobs(home, trees.repoRoot, trees.machine),
  });
  reportCreated(io, created);
  return created;
}

/** The configured model, for `merge --draft-message` (the same settings, key store and DEFT_* overrides as `deft run`). */
function cliAskModel(io: CliIo, home: string): AskModel {
  const settings = new ProviderSettings({
    home,
    secrets: io.coreOptions?.secrets ?? FileSecretStore.inHome(home),
    overrides: overridesFromEnv(io.env),
    ...(io.coreOptions?.fetch ? { fetch: io.coreOptions.fetch } : {}),
    emit: () => {},
  });
  return (request) => askModel(() => settings.config(), request, io.coreOptions?.fetch);
}

/**
 * The remote folder a session in a worktree made on that machine works in: the worktree's folder there, on the same
 * connection, kept under its own `ssh://` key (its sessions and trust are its own, as for a local worktree).
 */
export function remoteWorktreeFolder(remote: RemoteFolder, path: string): RemoteFolder {
  return { ...remote, environment: remote.environment.enter(path), workspace: path, id: remoteFolderIdAt(remote.id, path) };
}

function reportCreated(io: CliIo, created: Created): void {
  const { record, copy, notes } = created;
  io.stderr(`deft: worktree ${record.name} (branch ${record.branch}, from ${record.baseBranch ?? record.baseCommit.slice(0, 12)}) at ${record.path}\n`);
  if (copy.copied.length) io.stderr(`deft: copied into it: ${copy.copied.join(', ')}\n`);
  for (const skipped of copy.skipped) io.stderr(`deft: warning: not copied: ${skipped.path} (${skipped.reason})\n`);
  for (const note of notes) io.stderr(`deft: note: ${note}\n`);
}

/**
 * The worktrees of isolated sub-agents whose session was deleted: they were kept because they hold changes
 * (infra/worktrees/release.ts), and the list says so.
 */
async function orphans(home: string, trees: Worktrees): Promise<Set<string>> {
  const store = new SessionStore(home, trees.machine.sessionKey(trees.repoRoot));
  const gone = new Set<string>();
  for (const record of await trees.records.list()) if (record.session && !(await store.readMeta(record.session))) gone.add(record.name);
  return gone;
}

/** What its sessions are doing now, as the sidebar says it: running, waiting for you, or done (a session ran, none runs). */
export function liveText(w: Pick<WorktreeState, 'live' | 'sessions' | 'conflictWaiting'>): string {
  if (w.live === 'waiting') return 'waiting for you';
  if (w.live === 'running') return 'running';
  // Handed to its session, not taken yet: `deft worktrees resolve NAME` (or opening the worktree) runs it.
  if (w.conflictWaiting) return 'conflict to resolve';
  return w.sessions.length ? 'done' : '-';
}

function table(states: readonly WorktreeState[], repoRoot: string, kept: ReadonlySet<string> = new Set()): string {
  if (!states.length) return `No Deft worktrees for ${repoRoot}.\n`;
  const lines = [
    `Deft worktrees of ${repoRoot}:`,
    '  name                          branch                              base         changed  ahead  behind  sessions  now                  state',
  ];
  for (const w of states) {
    const cells = [
      w.name.padEnd(28),
      w.branch.padEnd(34),
      (w.baseBranch ?? w.baseCommit.slice(0, 10)).padEnd(11),
      String(w.changedFiles.length).padStart(7),
      String(w.ahead).padStart(5),
      String(w.behind).padStart(6),
      String(w.sessions.length).padStart(8),
      liveText(w).padEnd(19),
      (w.state === 'ok' ? (w.dirty ? 'uncommitted changes' : 'clean') : 'folder missing (deft worktrees cleanup)') +
        (kept.has(w.name) ? `; a sub-agent's, kept with its changes after its session was deleted (${w.path})` : ''),
    ];
    lines.push(`  ${cells.join('  ')}`);
  }
  return lines.join('\n') + '\n';
}

/** `deft worktrees [list|create|merge|apply|discard|cleanup] …`. Returns the exit code: 0 done, 1 refused or a conflict, 2 usage. */
export async function runWorktreesCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgsOr(() => parse(argv.slice(1)), WORKTREES_USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${WORKTREES_USAGE}\n`);
    return 0;
  }
  const [action = 'list', name, extra] = positionals;
  let remote: RemoteFolder | null = null;
  try {
    // resolve takes deft run's options: it is read before these (runWorktreeResolve), right after "worktrees".
    if (action === 'resolve') throw new UsageError('resolve comes first: deft worktrees resolve NAME [deft run options]');
    if (!ACTIONS.includes(action)) throw new UsageError(`unknown action "${action}": ${[...ACTIONS, 'resolve'].join(', ')}`);
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const needsName = ['merge', 'branch', 'apply', 'discard'].includes(action);
    if (values['draft-message'] && (action !== 'merge' || values.message !== undefined))
      throw new UsageError('--draft-message goes with merge, without --message');
    if (needsName && !name) throw new UsageError(`say which worktree: deft worktrees ${action} NAME`);
    if (!needsName && action !== 'create' && name !== undefined) throw new UsageError(`unexpected argument "${name}"`);
    const from = values.workspace ?? io.cwd;
    const home = cliHome(io);
    if (values.remote !== undefined) {
      if (values.workspace !== undefined) throw new UsageError('use either --workspace or --remote, not both');
      let spec;
      try {
        spec = parseRemoteSpec(values.remote);
      } catch (error) {
        throw new UsageError(`--remote ${(error as Error).message}`);
      }
      // SSH's packages load only for a remote folder.
      const { openRemoteForCli } = await import('../remote-folder');
      try {
        remote = await openRemoteForCli(spec, io.env, { oneShot: true });
      } catch (error) {
        io.stderr(`deft: cannot open ${values.remote}: ${(error as Error).message}\n`);
        return 5;
      }
      for (const note of remote.notes) io.stderr(`deft: warning: ${note}\n`);
    }
    const trees = await treesOf(home, from, remote ?? undefined);
    switch (action) {
      case 'list': {
        const states = await trees.list();
        const kept = await orphans(home, trees);
        io.stdout(
          values.json
            ? JSON.stringify(
                { repoRoot: trees.repoRoot, worktrees: states.map((w) => (kept.has(w.name) ? { ...w, keptAfterSessionDeleted: true } : w)) },
                null,
                2,
              ) + '\n'
            : table(states, trees.repoRoot, kept),
        );
        return 0;
      }
      case 'create': {
        const created = await trees.create({
          ...(name ? { name } : {}),
          ...(values.base ? { base: values.base } : {}),
          copy: await worktreeCopyGlobs(home, trees.repoRoot, trees.machine),
        });
        reportCreated(io, created);
        io.stdout(values.json ? JSON.stringify(created.record) + '\n' : `${created.record.path}\n`);
        return 0;
      }
      case 'merge': {
        let message = values.message;
        if (values['draft-message']) {
          const drafted = await draftMergeMessage(await trees.get(name!), { machine: trees.machine, squash: values.squash, ask: cliAskModel(io, home) });
          if (drafted.note) io.stderr(`deft: ${drafted.note}\n`);
          message = drafted.message;
        }
        const outcome = await trees.merge(name!, { squash: values.squash, ...(message !== undefined ? { message } : {}) });
        if (values.json) io.stdout(JSON.stringify(outcome) + '\n');
        switch (outcome.status) {
          case 'merged':
            if (!values.json)
              io.stdout(
                `${outcome.squashed ? 'Squashed' : 'Merged'} ${name} onto ${outcome.baseBranch} (${outcome.commit.slice(0, 12)}): ${outcome.files.join(', ')}\n`,
              );
            return 0;
          case 'nothing':
            if (!values.json) io.stdout(`${name} has nothing ${outcome.baseBranch} does not have.\n`);
            return 0;
          case 'conflict':
            if (remote) {
              // A remote folder's worktree: its session resolves it with deft run on that folder, or by hand there.
              const path = (await trees.get(name!)).path;
              io.stderr(
                `deft: merging ${name} onto ${outcome.baseBranch} conflicts in: ${outcome.files.join(', ')}. Nothing was changed.\n` +
                  `Next, on ${remote.environment.label}: cd ${path} && git merge ${outcome.baseBranch}   by hand: resolve, git add, git commit\n` +
                  `  (or have a session there do it: deft run --remote HOST:${path} "merge ${outcome.baseBranch} into this branch and resolve the conflicts")\n` +
                  `then: deft worktrees merge ${name} --remote ${values.remote}\n`,
              );
              return 1;
            }
            io.stderr(
              `deft: merging ${name} onto ${outcome.baseBranch} conflicts in: ${outcome.files.join(', ')}. Nothing was changed.\n` +
                `Next, either:\n` +
                `  deft worktrees resolve ${name} [--permission-mode accept-edits]   its session resolves it in the worktree, headless\n` +
                `  cd ${(await trees.get(name!)).path} && git merge ${outcome.baseBranch}   by hand: resolve, git add, git commit\n` +
                `then: deft worktrees merge ${name}\n`,
            );
            return 1;
          case 'dirty':
            io.stderr(
              `deft: ${outcome.checkout} has uncommitted changes in files the merge changes: ${outcome.files.join(', ')}. Commit or stash them first; nothing was changed.\n`,
            );
            return 1;
        }
        return 1;
      }
      case 'branch': {
        const kept = await trees.keepBranch(name!, values.message);
        if (values.json) io.stdout(JSON.stringify(kept) + '\n');
        else
          io.stdout(
            `${kept.committed ? 'Committed its uncommitted changes on' : 'Kept'} the branch ${kept.branch} and removed the worktree ${kept.removed}.\n`,
          );
        return 0;
      }
      case 'apply': {
        const outcome = await trees.apply(name!);
        if (values.json) io.stdout(JSON.stringify(outcome) + '\n');
        switch (outcome.status) {
          case 'applied':
            if (!values.json) io.stdout(`Applied ${name} to ${trees.repoRoot} as uncommitted changes: ${outcome.files.join(', ')}\n`);
            return 0;
          case 'nothing':
            if (!values.json) io.stdout(`${name} has no changes to apply.\n`);
            return 0;
          case 'dirty':
            io.stderr(`deft: ${trees.repoRoot} has uncommitted changes in files ${name} changes: ${outcome.files.join(', ')}. Nothing was changed.\n`);
            return 1;
          case 'conflict':
            io.stderr(
              `deft: ${name}'s changes do not apply to ${trees.repoRoot}${outcome.files.length ? ` (${outcome.files.join(', ')})` : ''}: ${outcome.message}. Nothing was changed.\n`,
            );
            return 1;
        }
        return 1;
      }
      case 'discard': {
        const done = await trees.discard(name!, { deleteBranch: values['delete-branch'] });
        if (values.json) io.stdout(JSON.stringify(done) + '\n');
        else io.stdout(`Removed ${done.removed}${done.branchDeleted ? ' and its branch' : ''}.\n`);
        return 0;
      }
      case 'cleanup': {
        const forgotten = await trees.cleanup();
        io.stdout(forgotten.length ? `Forgot worktrees whose folder was gone: ${forgotten.join(', ')}\n` : 'Nothing to clean up.\n');
        return 0;
      }
    }
    return 2;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deft: ${error.message}\n\n${WORKTREES_USAGE}\n`);
      return 2;
    }
    io.stderr(`deft: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  } finally {
    await remote?.environment.close();
  }
}
