import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { EffortSetting, PermissionMode, SessionEvent } from '#protocol';
import { type PricedUsage, sessionCost } from '#protocol/helpers/prices';
import { parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import { defaultCapabilities } from '../../agent/capabilities';
import { withSkillsOptions } from '../../agent/capabilities/skills/capability';
import { withMcpOptions } from '../../agent/capabilities/mcp/capability';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { deftHome } from '#infra/platform/home';
import { findSessionWorkspace } from '#infra/sessions/store';
import { type RemoteSpec, isRemoteFolderId, parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { REMOTE_LEFT_OUT, openRemoteForCli, remoteCapabilities } from '../remote-folder';
import { createNodeCore } from '../compose';
import { cliHost } from '../hosts';
import { runCheckpointsCli } from './checkpoints-cli';
import { runMcpCli } from './mcp-cli';
import { createRunWorktree, runWorktreesCli } from './worktrees-cli';
import { type ForkFlags, forkFlags, forkForRun } from './fork-cli';
import { HELP, USAGE } from './usage';
import { type CliIo, parseArgsOr } from './io';

export type { CliIo } from './io';

const PROVIDERS = ['openai', 'anthropic'];
const MODES = ['ask', 'accept-edits', 'yolo'];
const FORMATS = ['text', 'stream-json', 'json'];
const EFFORTS: EffortSetting[] = ['off', 'low', 'medium', 'high', 'max'];
type Format = 'text' | 'stream-json' | 'json';

class UsageError extends Error {}
/** The remote folder could not be opened (unreachable, host key refused, login refused, no such folder): exit 5. */
class RemoteError extends Error {}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      remote: { type: 'string' },
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      'permission-mode': { type: 'string', default: 'ask' },
      'output-format': { type: 'string', default: 'text' },
      sandbox: { type: 'string' },
      'max-steps': { type: 'string' },
      'max-turns': { type: 'string' },
      effort: { type: 'string' },
      'append-system-prompt': { type: 'string' },
      session: { type: 'string' },
      fork: { type: 'string' },
      at: { type: 'string' },
      'fork-files': { type: 'string' },
      worktree: { type: 'string' },
      'worktree-base': { type: 'string' },
      'skills-dir': { type: 'string', multiple: true },
      'mcp-config': { type: 'string', multiple: true },
      'mcp-server': { type: 'string', multiple: true },
      continue: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  return { values, positionals };
}

/** `deft run …` — one turn, headless; `deft rewind …` and `deft checkpoints …`. Returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'rewind' || argv[0] === 'checkpoints') return runCheckpointsCli(argv, io);
  if (argv[0] === 'mcp') return runMcpCli(argv, io);
  if (argv[0] === 'worktrees') return runWorktreesCli(argv, io);
  // A bare --worktree (no "=NAME") asks for a worktree with a name made from the prompt.
  const parsed = parseArgsOr(() => parse(argv.map((arg) => (arg === '--worktree' ? '--worktree=' : arg))), USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const startedAt = Date.now();
  const json = values['output-format'] === 'json';
  let sessionId: string | undefined;
  let remote: RemoteFolder | null = null;
  try {
    const [command, ...words] = positionals;
    if (command !== 'run')
      throw new UsageError(
        `unknown command "${command}". The commands are run, rewind, checkpoints, mcp, worktrees and acp; did you mean: deft run "<prompt>"?`,
      );
    let prompt = words.join(' ');
    if (prompt === '-' && io.readStdin) prompt = await io.readStdin();
    if (!prompt.trim()) throw new UsageError('a prompt is required: deft run "<prompt>"');
    if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
    if (!MODES.includes(values['permission-mode'])) throw new UsageError(`--permission-mode must be one of ${MODES.join(', ')}`);
    if (values.sandbox !== undefined && values.sandbox !== 'on' && values.sandbox !== 'off') throw new UsageError('--sandbox must be on or off');
    if (!FORMATS.includes(values['output-format'])) throw new UsageError(`--output-format must be one of ${FORMATS.join(', ')}`);
    if (values.session !== undefined && values.continue) throw new UsageError('use either --session or --continue, not both');
    let maxSteps: number | undefined;
    // --max-turns is Claude Code's name for the same budget: model steps (one request and its tool calls each).
    for (const flag of ['max-steps', 'max-turns'] as const) {
      const given = values[flag];
      if (given === undefined) continue;
      const n = /^\d+$/.test(given.trim()) ? Number(given) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive whole number`);
      maxSteps = maxSteps === undefined ? n : Math.min(maxSteps, n);
    }
    const effort = values.effort;
    if (effort !== undefined && !EFFORTS.includes(effort as EffortSetting)) throw new UsageError(`--effort must be one of ${EFFORTS.join(', ')}`);
    const appendSystemPrompt = values['append-system-prompt'];
    if (appendSystemPrompt !== undefined && !appendSystemPrompt.trim()) throw new UsageError('--append-system-prompt needs a text');
    if (values['base-url'] !== undefined && !/^https?:\/\//i.test(values['base-url'])) throw new UsageError('--base-url must start with http:// or https://');
    if (values.worktree !== undefined && (values.session !== undefined || values.continue))
      throw new UsageError('--worktree starts a new session in a new worktree; to resume one there, run deft run --continue in its folder');
    if (values['worktree-base'] !== undefined && values.worktree === undefined) throw new UsageError('--worktree-base goes with --worktree');
    let fork: ForkFlags | null;
    try {
      fork = forkFlags(values);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }

    const overrides = overridesFromEnv(io.env);
    if (values.provider) overrides.kind = values.provider;
    if (values['base-url']) overrides.baseUrl = values['base-url'];
    if (values.model) overrides.model = values.model;
    if (values['api-key']) overrides.apiKey = values['api-key'];

    const skillsDirs = (values['skills-dir'] ?? []).map((dir) => resolve(io.cwd, dir));
    for (const dir of skillsDirs) {
      if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--skills-dir ${dir} is not a folder`);
    }

    const mcpConfigs = (values['mcp-config'] ?? []).map((file) => resolve(io.cwd, file));
    for (const file of mcpConfigs) {
      if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`--mcp-config ${file} is not a file`);
    }
    // --remote: the folder on another machine; a session that ran on one (--session) reopens it.
    let remoteSpec: RemoteSpec | null = null;
    if (values.remote !== undefined) {
      if (values.workspace !== undefined) throw new UsageError('use either --workspace or --remote, not both');
      try {
        remoteSpec = parseRemoteSpec(values.remote);
      } catch (error) {
        throw new UsageError(`--remote ${(error as Error).message}`);
      }
    } else if ((values.session ?? values.fork) !== undefined && values.workspace === undefined) {
      // A session that ran on a remote folder (resumed or forked) reopens it.
      const ran = await findSessionWorkspace(io.coreOptions?.home ?? deftHome(io.env), (values.session ?? values.fork)!);
      if (ran && isRemoteFolderId(ran)) remoteSpec = parseRemoteSpec(ran);
    }
    if (remoteSpec && (skillsDirs.length || mcpConfigs.length || values['mcp-server']?.length))
      throw new UsageError('--skills-dir, --mcp-config and --mcp-server are not available on a remote folder yet');

    // A headless run reads the skill folders once: it watches nothing it will not use.
    let capabilities = withSkillsOptions(defaultCapabilities, { ...(skillsDirs.length ? { explicitDirs: skillsDirs } : {}), watch: false });
    // Headless: servers are waited for before the prompt; what was skipped or failed is said on stderr.
    capabilities = withMcpOptions(capabilities, { extraConfigs: mcpConfigs, headless: true, env: io.env, allowServers: values['mcp-server'] ?? [] });
    // --append-system-prompt: the text as the last section of the system prompt (after every capability's).
    if (appendSystemPrompt !== undefined)
      capabilities = [...capabilities, () => ({ name: 'cli-append-system-prompt', systemPrompt: () => appendSystemPrompt })];

    let workspace = values.workspace ?? io.cwd;
    let worktree: { name: string; branch: string; path: string } | undefined;
    if (values.worktree !== undefined && remoteSpec)
      throw new UsageError('--worktree works on a folder on this machine: it cannot be combined with --remote yet.');
    if (values.worktree !== undefined) {
      // The session runs in a new worktree: the folder given (or this one) only says which repository.
      const { record } = await createRunWorktree(io, workspace, {
        ...(values.worktree ? { name: values.worktree } : {}),
        ...(values['worktree-base'] ? { base: values['worktree-base'] } : {}),
        hint: prompt,
      }).catch((error: Error) => Promise.reject(new UsageError(error.message)));
      workspace = record.path;
      worktree = { name: record.name, branch: record.branch, path: record.path };
    }
    if (remoteSpec) {
      capabilities = remoteCapabilities(defaultCapabilities);
      if (appendSystemPrompt !== undefined)
        capabilities = [...capabilities, () => ({ name: 'cli-append-system-prompt', systemPrompt: () => appendSystemPrompt })];
      try {
        remote = await openRemoteForCli(remoteSpec, io.env);
      } catch (error) {
        throw new RemoteError(`cannot open ${values.remote ?? `the folder of session ${values.session}`}: ${(error as Error).message}`);
      }
      for (const note of remote.notes) io.stderr(`deft: warning: ${note}\n`);
      io.stderr(`deft: note: on a remote folder, ${REMOTE_LEFT_OUT} are not available yet.\n`);
      const where = remote.environment.label;
      remote.environment.onConnectionState((state, detail) => {
        if (state === 'reconnecting') io.stderr(`deft: ${detail ?? `the connection to ${where} dropped`} Reconnecting…\n`);
        else if (state === 'connected') io.stderr(`deft: reconnected to ${where}.\n`);
        else if (detail) io.stderr(`deft: ${detail}\n`);
      });
    }

    let core;
    try {
      core = createNodeCore({
        workspace: remote ? remote.workspace : workspace,
        ...(remote ? { environment: remote.environment, workspaceId: remote.id } : {}),
        host: cliHost(io.stderr),
        env: io.env,
        providerOverrides: overrides,
        ...(values.sandbox ? { sandbox: values.sandbox } : {}),
        ...(maxSteps !== undefined ? { maxSteps } : {}),
        capabilities,
        ...io.coreOptions,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const settings = await core.handlers.getSettings({});
    if (!settings.provider) throw new UsageError('no model is configured: pass --base-url and --model (or set DEFT_BASE_URL and DEFT_MODEL)');

    // A resumed session's unreadable log lines are reported, not silently dropped (as the window does).
    const reportProblems = (problems: readonly string[]) => problems.forEach((p) => io.stderr(`deft: warning: ${p}\n`));
    if (values.session !== undefined) {
      sessionId = values.session;
      const opened = await core.handlers.openSession({ sessionId }).catch(() => null);
      if (!opened) throw new UsageError(`session "${sessionId}" does not exist in this workspace`);
      reportProblems(opened.problems);
    } else if (fork) {
      const forked = await forkForRun(core, fork);
      if ('error' in forked) throw forked.usage ? new UsageError(forked.error) : new Error(forked.error);
      io.stderr(forked.note);
      sessionId = forked.sessionId;
    } else if (values.continue && (await core.latestSessionId())) {
      sessionId = (await core.latestSessionId())!;
      reportProblems((await core.handlers.openSession({ sessionId })).problems);
    } else {
      sessionId = (await core.handlers.createSession({})).session.id;
    }

    if (appendSystemPrompt !== undefined && (values.session !== undefined || values.continue || fork)) {
      io.stderr(
        "deft: warning: a resumed session keeps the system prompt it rendered (for the provider's cache); --append-system-prompt takes effect once it is rendered again (a changed tool set, a compaction).\n",
      );
    }
    // The run shows the session it runs: it stays loaded for the whole run.
    core.show('cli', sessionId);
    await core.handlers.setPermissionMode({ sessionId, mode: values['permission-mode'] as PermissionMode });
    // The effort as the window's chip sets it: the session's own, kept for its later turns.
    if (effort !== undefined) await core.handlers.setSessionEffort({ sessionId, effort: effort as EffortSetting });
    // Invalid rules are not used; headless there is no window to show them, so say so on stderr.
    const { permissions } = await core.handlers.getPermissions({ sessionId });
    if (permissions.trust.ignored.length) {
      io.stderr(
        `deft: warning: this folder is not trusted, so its own settings cannot widen permissions; not used: ${permissions.trust.ignored.join('; ')}. Trust the folder in the Deft window, or set "trusted": true for it in ~/.deft/trust.json.\n`,
      );
    }
    // A remote folder's session has no hooks capability (yet): nothing to report.
    const hooks = typeof core.handlers.listHooks === 'function' ? await core.handlers.listHooks({}) : { hooks: [], problems: [] };
    const inactive = hooks.hooks.filter((hook) => !hook.active);
    if (inactive.length) {
      io.stderr(
        `deft: warning: this folder is not trusted, so its own hooks do not run: ${inactive.map((hook) => `${hook.event} "${hook.command}" (${hook.file})`).join('; ')}.\n`,
      );
    }
    for (const problem of hooks.problems) io.stderr(`deft: warning: ${problem.message}.\n`);
    for (const problem of permissions.problems) {
      io.stderr(`deft: warning: ${problem.message}${problem.rule !== undefined ? ` (rule: ${problem.rule}); this rule is not used` : ''}\n`);
    }
    // Said once on stderr, when the first command is about to run (a run that starts none never probes the sandbox),
    // unless this run turned it off itself (--sandbox off).
    const warnAboutSandbox = async () => {
      const { sandbox } = await core.handlers.getWorkspace({});
      if (sandbox && !sandbox.enabled && values.sandbox !== 'off') {
        const why = sandbox.available
          ? (sandbox.reason ?? 'turned off')
          : `no OS sandbox here: ${sandbox.reason ?? 'unknown'}${sandbox.install ? ` ${sandbox.install}` : ''}`;
        io.stderr(`deft: warning: commands run without the OS sandbox (${why}); only the permission rules apply.\n`);
      }
    };
    const run = { sessionId, startedAt, model: settings.provider.model, ...(worktree ? { worktree } : {}) };
    return await runPrompt(core, run, prompt, values['output-format'] as Format, io, warnAboutSandbox);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deft: ${error.message}\n`);
      return 2;
    }
    if (error instanceof RemoteError) {
      io.stderr(`deft: ${error.message}\n`);
      return 5;
    }
    const message = (error as Error)?.message ?? String(error);
    io.stderr(`deft: ${message}\n`);
    // A script reading the json result gets one even when the run failed before its turn ended.
    if (json) {
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      writeResult(io, { subtype: 'error_during_execution', result: '', error: message, sessionId, durationMs: Date.now() - startedAt, turns: 0, usage });
    }
    return 1;
  } finally {
    await remote?.environment.close();
  }
}

/** The result of `--output-format json`, in the shape Claude Code's headless result has. */
interface RunResult {
  subtype: 'success' | 'error_max_turns' | 'error_during_execution' | 'error_prompt_blocked';
  result: string;
  error?: string;
  sessionId: string | undefined;
  durationMs: number;
  turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  costUsd?: number;
  /** The worktree the run worked in (`--worktree`). */
  worktree?: { name: string; branch: string; path: string };
}

/** One JSON object on one line: JSON.stringify escapes whatever the answer holds (quotes, newlines, control characters). */
function writeResult(io: CliIo, r: RunResult): void {
  const object = {
    type: 'result',
    subtype: r.subtype,
    is_error: r.subtype !== 'success',
    result: r.result,
    ...(r.error !== undefined ? { error: r.error } : {}),
    session_id: r.sessionId ?? null,
    duration_ms: r.durationMs,
    num_turns: r.turns,
    usage: r.usage,
    ...(r.costUsd !== undefined ? { total_cost_usd: r.costUsd } : {}),
    ...(r.worktree ? { worktree: r.worktree } : {}),
  };
  io.stdout(JSON.stringify(object) + '\n');
}

type GoalNow = Extract<SessionEvent, { type: 'goal.updated' }>['goal'];

/** A prompt as the window sends it: `/name args` runs the skill or command of that name (expanded the same way), anything else is a message. */
async function startPrompt(core: ReturnType<typeof createNodeCore>, sessionId: string, prompt: string): Promise<void> {
  if (prompt.trim().startsWith('/') && typeof core.handlers.listSkills === 'function') {
    const { skills } = await core.handlers.listSkills({});
    const command = parseSlashCommand(prompt, slashCommands(skills));
    if (command) {
      await core.handlers.runSkill({ sessionId, name: command.skill.name, ...(command.args ? { args: command.args } : {}) });
      return;
    }
  }
  await core.handlers.sendPrompt({ sessionId, text: prompt });
}

/**
 * Runs the prompt's turn, then stays while the agent has work that will wake it (a background task it started, a goal it is pursuing), following those turns too.
 * The text output is the last turn's final answer.
 */
async function runPrompt(
  core: ReturnType<typeof createNodeCore>,
  run: { sessionId: string; startedAt: number; model: string | undefined; worktree?: RunResult['worktree'] },
  prompt: string,
  format: Format,
  io: CliIo,
  onFirstCommand: () => Promise<void>,
): Promise<number> {
  const { sessionId } = run;
  // What the json result reports: this run's model steps, its tokens by model (priced as the window prices them), a prompt a hook refused.
  const steps = new Set<string>();
  const byModel: Record<string, PricedUsage & { cacheWriteTokens: number }> = {};
  let promptBlocked = false;
  const prices = format === 'json' ? (await core.handlers.getPreferences({})).prices : null;
  const firstCommand: { started: Promise<void> | null } = { started: null };
  const stepText = new Map<number, string>();
  let lastStepWithText = 0;
  let ended: Extract<SessionEvent, { type: 'turn.ended' }> | null = null;
  let goal: GoalNow = null;
  const stopWaiting = new AbortController();
  const unsubscribe = core.onEvent((event) => {
    // A sub-agent's own events, tagged with its agent id, so a headless client can follow it too.
    if (event.type === 'agent.event' && event.sessionId === sessionId) {
      if (format === 'stream-json') io.stdout(JSON.stringify(event) + '\n');
      return;
    }
    if (!('seq' in event) || event.sessionId !== sessionId) return;
    if (event.type === 'tool.call.started' && event.display?.kind === 'command') firstCommand.started ??= onFirstCommand().catch(() => {});
    if (format === 'stream-json') io.stdout(JSON.stringify(event) + '\n');
    // Headless, what a hook refused or failed at is said on stderr (stream-json carries every hook event).
    else if (event.type === 'hook.ran' && event.result !== 'context' && event.result !== 'allowed' && event.result !== 'output') {
      io.stderr(`deft: ${event.event} hook "${event.command}" ${event.result}: ${event.message}\n`);
    }
    if (event.type === 'step.started') steps.add(`${event.turnId}:${event.step}`);
    else if (event.type === 'usage') {
      const sum = (byModel[event.model ?? ''] ??= { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 });
      sum.inputTokens += event.step.inputTokens;
      sum.outputTokens += event.step.outputTokens;
      sum.cachedTokens = (sum.cachedTokens ?? 0) + (event.step.cachedTokens ?? 0);
      sum.cacheWriteTokens += event.step.cacheWriteTokens ?? 0;
    } else if (event.type === 'hook.ran' && event.event === 'UserPromptSubmit' && (event.result === 'blocked' || event.result === 'stopped')) {
      promptBlocked = true;
    }
    if (event.type === 'turn.started') {
      stepText.clear();
      lastStepWithText = 0;
    } else if (event.type === 'assistant.delta') {
      stepText.set(event.step, (stepText.get(event.step) ?? '') + event.text);
      lastStepWithText = event.step;
    } else if (event.type === 'step.retrying' || event.type === 'step.started') {
      stepText.delete(event.step);
    } else if (event.type === 'goal.updated') {
      goal = event.goal;
    } else if (event.type === 'turn.ended') {
      ended = event;
      // A failed or stopped turn ends the run; background work is stopped with the core.
      if (event.stopReason === 'cancelled' || event.stopReason === 'error' || event.stopReason === 'filtered') stopWaiting.abort();
    }
  });
  let interrupted = false;
  const removeInterrupt = io.onInterrupt?.(() => {
    interrupted = true;
    stopWaiting.abort();
    void core.handlers.cancelTurn({ sessionId });
  });
  try {
    await startPrompt(core, sessionId, prompt);
    await core.settled(sessionId, stopWaiting.signal);
    await core.turnDone(sessionId);
    await firstCommand.started;
  } catch (error) {
    await core.close();
    throw error;
  } finally {
    removeInterrupt?.();
    unsubscribe();
  }
  await core.close();
  const end = ended as Extract<SessionEvent, { type: 'turn.ended' }> | null;
  // A goal's last turn ends with UpdateGoal (no answer after it): its note is the final word.
  const settledGoal = goal as GoalNow;
  const goalNote =
    settledGoal && (settledGoal.status === 'complete' || settledGoal.status === 'blocked')
      ? `Goal ${settledGoal.status}${settledGoal.reason ? `: ${settledGoal.reason}` : '.'}`
      : '';
  const answer = stepText.get(lastStepWithText) || goalNote;
  if (format === 'text' && answer) io.stdout(answer.endsWith('\n') ? answer : answer + '\n');
  const outcome = runOutcome(end, interrupted, promptBlocked, io);
  if (format === 'json') {
    const models = Object.values(byModel);
    const total = (pick: (u: PricedUsage & { cacheWriteTokens: number }) => number) => models.reduce((n, u) => n + pick(u), 0);
    const cost = prices ? sessionCost(byModel, prices, run.model) : null;
    writeResult(io, {
      subtype: outcome.subtype,
      result: answer,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      sessionId,
      durationMs: Date.now() - run.startedAt,
      turns: steps.size,
      usage: {
        input_tokens: total((u) => u.inputTokens),
        output_tokens: total((u) => u.outputTokens),
        cache_read_input_tokens: total((u) => u.cachedTokens ?? 0),
        cache_creation_input_tokens: total((u) => u.cacheWriteTokens),
      },
      // Only when every model the run used is priced: a partial sum would read as the whole cost.
      ...(cost && cost.unpriced.length === 0 ? { costUsd: cost.usd } : {}),
      ...(run.worktree ? { worktree: run.worktree } : {}),
    });
  }
  return outcome.code;
}

/**
 * The exit code (and the json result's subtype) of a run that reached its end: 0 done, 1 error, 3 the prompt
 * refused by a hook, 4 out of budget (--max-steps / --max-turns), 130 interrupted. Says why on stderr.
 */
function runOutcome(
  end: Extract<SessionEvent, { type: 'turn.ended' }> | null,
  interrupted: boolean,
  promptBlocked: boolean,
  io: CliIo,
): { code: number; subtype: RunResult['subtype']; error?: string } {
  const failed = (code: number, error: string) => ({ code, subtype: 'error_during_execution' as const, error });
  if (interrupted && end?.stopReason !== 'cancelled') {
    io.stderr('deft: interrupted; the background work the agent started was stopped.\n');
    return failed(130, 'interrupted');
  }
  if (!end) return failed(1, 'the turn did not end');
  switch (end.stopReason) {
    case 'end_turn':
      if (promptBlocked) {
        const error = 'a UserPromptSubmit hook refused the prompt; it did not reach the model.';
        io.stderr(`deft: ${error}\n`);
        return { code: 3, subtype: 'error_prompt_blocked', error };
      }
      return { code: 0, subtype: 'success' };
    case 'max_steps': {
      const error = 'stopped at the --max-steps / --max-turns limit before the model finished.';
      io.stderr(`deft: ${error}\n`);
      return { code: 4, subtype: 'error_max_turns', error };
    }
    case 'max_tokens':
      io.stderr('deft: the model hit its output token limit; the answer may be cut short.\n');
      return { code: 0, subtype: 'success' };
    case 'filtered':
      io.stderr('deft: the provider filtered the answer.\n');
      return failed(1, 'the provider filtered the answer.');
    case 'cancelled':
      io.stderr('deft: interrupted.\n');
      return failed(interrupted ? 130 : 1, 'interrupted');
    case 'error': {
      const error = end.error?.message ?? 'the turn failed.';
      io.stderr(`deft: ${error}\n`);
      return failed(1, error);
    }
  }
}
