import { parseArgs } from 'node:util';
import type { PromptCheckpoint, RewindResult, RewindScope, SkippedFileInfo } from '#protocol';
import { createNodeCore } from '../compose';
import { cliHost } from '../hosts';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { deftHome } from '#infra/platform/home';
import { findSessionWorkspace } from '#infra/sessions/store';
import { type RemoteSpec, isRemoteFolderId, parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { type CliIo, parseArgsOr } from './io';
import { REWIND_USAGE } from './usage';

class UsageError extends Error {}

const SCOPES: readonly RewindScope[] = ['both', 'code', 'conversation'];

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      remote: { type: 'string' },
      session: { type: 'string' },
      continue: { type: 'boolean', default: false },
      to: { type: 'string' },
      scope: { type: 'string', default: 'both' },
      'include-outside': { type: 'boolean', default: false },
      undo: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** `deft rewind …` and `deft checkpoints …`. Returns the process exit code. */
export async function runCheckpointsCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgsOr(() => parse(argv), REWIND_USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${REWIND_USAGE}\n`);
    return 0;
  }
  const command = positionals[0];
  let core: ReturnType<typeof createNodeCore> | undefined;
  let remote: RemoteFolder | null = null;
  try {
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    if (values.session !== undefined && values.continue) throw new UsageError('use either --session or --continue, not both');
    if (values.session === undefined && !values.continue) throw new UsageError('say which session: --session ID, or --continue for the latest one');
    const scope = values.scope as RewindScope;
    if (!SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}`);
    if (command === 'rewind' && values.undo === (values.to !== undefined)) throw new UsageError('give either --to N or --undo');
    const spec = await remoteSpecOf(values, io);
    if (spec) {
      // SSH's packages load only for a remote folder.
      const { openRemoteForCli } = await import('../remote-folder');
      try {
        remote = await openRemoteForCli(spec, io.env, { oneShot: true });
      } catch (error) {
        io.stderr(`deft: cannot open ${values.remote ?? `the folder of session ${values.session}`}: ${(error as Error).message}\n`);
        return 5;
      }
    }
    try {
      core = createNodeCore({
        workspace: remote ? remote.workspace : (values.workspace ?? io.cwd),
        ...(remote ? { environment: remote.environment, workspaceId: remote.id } : {}),
        host: cliHost(io.stderr),
        env: io.env,
        providerOverrides: overridesFromEnv(io.env),
        inbox: 'off',
        ...io.coreOptions,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const sessionId = values.session ?? (await core.latestSessionId());
    if (!sessionId) throw new UsageError('this workspace has no sessions yet');
    if (!(await core.handlers.openSession({ sessionId }).catch(() => null))) throw new UsageError(`session "${sessionId}" does not exist in this workspace`);
    const { status, prompts } = await core.handlers.listCheckpoints({ sessionId });
    if (command === 'checkpoints') {
      if (values.json) io.stdout(JSON.stringify({ sessionId, status, prompts }, null, 2) + '\n');
      else io.stdout(promptTable(sessionId, prompts, status.available ? null : (status.reason ?? 'unavailable')));
      return 0;
    }
    if (values.undo) {
      const undone = await core.handlers.undoRewind({ sessionId });
      io.stdout(`Undid the last rewind (${undone.scope === 'both' ? 'code and conversation' : undone.scope}).\n`);
      for (const p of undone.problems) io.stderr(`deft: could not restore ${p.path}: ${p.reason}\n`);
      return undone.problems.length ? 1 : 0;
    }
    const n = Number(values.to);
    const numbered = prompts.filter((p) => p.index > 0);
    if (!Number.isInteger(n) || n < 1) throw new UsageError('--to must be a prompt number: 1 or more');
    const target = numbered.find((p) => p.index === n);
    if (!target)
      throw new UsageError(
        numbered.length ? `this session has prompts 1 to ${numbered.length} (see: deft checkpoints)` : 'this session has no prompts with checkpoints',
      );
    const result = await core.handlers.rewind({ sessionId, turnId: target.turnId, scope, includeOutside: values['include-outside'] });
    io.stdout(summary(result, target, sessionId));
    return report(result, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deft: ${error.message}\n`);
      return 2;
    }
    io.stderr(`deft: ${(error as Error)?.message?.replace(/^\[[a-z_]+\] /, '') ?? String(error)}\n`);
    return 1;
  } finally {
    await core?.close();
    await remote?.environment.close();
  }
}

/** The remote folder to open: --remote, or the one a session named by --session ran on. A UsageError for bad text. */
async function remoteSpecOf(values: { remote?: string; workspace?: string; session?: string }, io: CliIo): Promise<RemoteSpec | null> {
  if (values.remote !== undefined) {
    if (values.workspace !== undefined) throw new UsageError('use either --workspace or --remote, not both');
    try {
      return parseRemoteSpec(values.remote);
    } catch (error) {
      throw new UsageError(`--remote ${(error as Error).message}`);
    }
  }
  if (values.session === undefined || values.workspace !== undefined) return null;
  const ran = await findSessionWorkspace(io.coreOptions?.home ?? deftHome(io.env), values.session);
  return ran && isRemoteFolderId(ran) ? parseRemoteSpec(ran) : null;
}

function promptTable(sessionId: string, prompts: readonly PromptCheckpoint[], unavailable: string | null): string {
  const lines = [`Prompts of session ${sessionId}${unavailable ? ` (checkpoints unavailable: ${unavailable})` : ''}:`];
  const numbered = prompts.filter((p) => p.index > 0);
  if (!numbered.length) return `${lines[0]}\n  none yet\n`;
  lines.push('    N  when                 files  prompt');
  for (const p of numbered) {
    const when = new Date(p.at).toISOString().replace('T', ' ').slice(0, 19);
    const text = p.text.replace(/\s+/g, ' ').trim();
    const flag = p.inConversation ? '' : '  [conversation compacted or undone: code only]';
    lines.push(`${String(p.index).padStart(5)}  ${when}  ${String(p.changedFiles).padStart(5)}  ${text.length > 60 ? `${text.slice(0, 59)}…` : text}${flag}`);
  }
  return lines.join('\n') + '\n';
}

function summary(result: RewindResult, target: PromptCheckpoint, sessionId: string): string {
  const what = result.scope === 'both' ? 'code and conversation' : result.scope;
  const counts = [`${result.restored.length} restored`, `${result.removed.length} removed`, `${result.broughtBack.length} brought back`].join(', ');
  const turns = result.undoneTurns.length
    ? `; ${result.undoneTurns.length} turn${result.undoneTurns.length === 1 ? '' : 's'} taken out of the conversation`
    : '';
  return `Rewound ${what} to just before prompt ${target.index} ("${target.text.replace(/\s+/g, ' ').slice(0, 60)}"): ${result.scope === 'conversation' ? 'files unchanged' : counts}${turns}.\nUndo with: deft rewind --session ${sessionId} --undo\n`;
}

function report(result: RewindResult, io: CliIo): number {
  if (result.keptOutside.length)
    io.stderr(
      `deft: left as they are (changed outside this session's turns since then; use --include-outside to restore them too): ${result.keptOutside.join(', ')}\n`,
    );
  const notCaptured = (f: SkippedFileInfo) =>
    `${f.path} (${f.reason === 'too_large' ? `over the size limit${f.size ? `: ${f.size} bytes` : ''}` : f.reason.replace('_', ' ')})`;
  if (result.notCaptured.length) io.stderr(`deft: not restored, because checkpoints do not capture them: ${result.notCaptured.map(notCaptured).join(', ')}\n`);
  for (const p of result.problems) io.stderr(`deft: could not restore ${p.path}: ${p.reason}\n`);
  return result.problems.length ? 1 : 0;
}
