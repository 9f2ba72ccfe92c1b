import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { PermissionMode, SessionEvent } from '#protocol';
import { parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import { defaultCapabilities } from '../../agent/capabilities';
import { withSkillsOptions } from '../../agent/capabilities/skills/capability';
import { withMcpOptions } from '../../agent/capabilities/mcp/capability';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { createNodeCore } from '../compose';
import { cliHost } from '../hosts';
import { runCheckpointsCli } from './checkpoints-cli';
import { runMcpCli } from './mcp-cli';
import { HELP, USAGE } from './usage';
import { type CliIo, parseArgsOr } from './io';

export type { CliIo } from './io';

const PROVIDERS = ['openai', 'anthropic'];
const MODES = ['ask', 'accept-edits', 'yolo'];
const FORMATS = ['text', 'stream-json'];

class UsageError extends Error {}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      'permission-mode': { type: 'string', default: 'ask' },
      'output-format': { type: 'string', default: 'text' },
      sandbox: { type: 'string' },
      'max-steps': { type: 'string' },
      session: { type: 'string' },
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
  const parsed = parseArgsOr(() => parse(argv), USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  try {
    const [command, ...words] = positionals;
    if (command !== 'run')
      throw new UsageError(`unknown command "${command}". The commands are run, rewind, checkpoints and mcp; did you mean: deft run "<prompt>"?`);
    let prompt = words.join(' ');
    if (prompt === '-' && io.readStdin) prompt = await io.readStdin();
    if (!prompt.trim()) throw new UsageError('a prompt is required: deft run "<prompt>"');
    if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
    if (!MODES.includes(values['permission-mode'])) throw new UsageError(`--permission-mode must be one of ${MODES.join(', ')}`);
    if (values.sandbox !== undefined && values.sandbox !== 'on' && values.sandbox !== 'off') throw new UsageError('--sandbox must be on or off');
    if (!FORMATS.includes(values['output-format'])) throw new UsageError(`--output-format must be one of ${FORMATS.join(', ')}`);
    if (values.session !== undefined && values.continue) throw new UsageError('use either --session or --continue, not both');
    let maxSteps: number | undefined;
    if (values['max-steps'] !== undefined) {
      maxSteps = Number(values['max-steps']);
      if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new UsageError('--max-steps must be a positive whole number');
    }
    if (values['base-url'] !== undefined && !/^https?:\/\//i.test(values['base-url'])) throw new UsageError('--base-url must start with http:// or https://');

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
    // A headless run reads the skill folders once: it watches nothing it will not use.
    let capabilities = withSkillsOptions(defaultCapabilities, { ...(skillsDirs.length ? { explicitDirs: skillsDirs } : {}), watch: false });
    // Headless: servers are waited for before the prompt; what was skipped or failed is said on stderr.
    capabilities = withMcpOptions(capabilities, { extraConfigs: mcpConfigs, headless: true, env: io.env, allowServers: values['mcp-server'] ?? [] });

    let core;
    try {
      core = createNodeCore({
        workspace: values.workspace ?? io.cwd,
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

    let sessionId: string;
    // A resumed session's unreadable log lines are reported, not silently dropped (as the window does).
    const reportProblems = (problems: readonly string[]) => problems.forEach((p) => io.stderr(`deft: warning: ${p}\n`));
    if (values.session !== undefined) {
      sessionId = values.session;
      const opened = await core.handlers.openSession({ sessionId }).catch(() => null);
      if (!opened) throw new UsageError(`session "${sessionId}" does not exist in this workspace`);
      reportProblems(opened.problems);
    } else if (values.continue && (await core.latestSessionId())) {
      sessionId = (await core.latestSessionId())!;
      reportProblems((await core.handlers.openSession({ sessionId })).problems);
    } else {
      sessionId = (await core.handlers.createSession({})).session.id;
    }

    // The run shows the session it runs: it stays loaded for the whole run.
    core.show('cli', sessionId);
    await core.handlers.setPermissionMode({ sessionId, mode: values['permission-mode'] as PermissionMode });
    // Invalid rules are not used; headless there is no window to show them, so say so on stderr.
    const { permissions } = await core.handlers.getPermissions({ sessionId });
    if (permissions.trust.ignored.length) {
      io.stderr(
        `deft: warning: this folder is not trusted, so its own settings cannot widen permissions; not used: ${permissions.trust.ignored.join('; ')}. Trust the folder in the Deft window, or set "trusted": true for it in ~/.deft/trust.json.\n`,
      );
    }
    const hooks = await core.handlers.listHooks({});
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
    return await runPrompt(core, sessionId, prompt, values['output-format'] as 'text' | 'stream-json', io, warnAboutSandbox);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deft: ${error.message}\n`);
      return 2;
    }
    io.stderr(`deft: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

type GoalNow = Extract<SessionEvent, { type: 'goal.updated' }>['goal'];

/** A prompt as the window sends it: `/name args` runs the skill or command of that name (expanded the same way), anything else is a message. */
async function startPrompt(core: ReturnType<typeof createNodeCore>, sessionId: string, prompt: string): Promise<void> {
  if (prompt.trim().startsWith('/')) {
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
  sessionId: string,
  prompt: string,
  format: 'text' | 'stream-json',
  io: CliIo,
  onFirstCommand: () => Promise<void>,
): Promise<number> {
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
  if (format === 'text') {
    // A goal's last turn ends with UpdateGoal (no answer after it): its note is the final word.
    const settledGoal = goal as GoalNow;
    const goalNote =
      settledGoal && (settledGoal.status === 'complete' || settledGoal.status === 'blocked')
        ? `Goal ${settledGoal.status}${settledGoal.reason ? `: ${settledGoal.reason}` : '.'}`
        : '';
    const answer = stepText.get(lastStepWithText) || goalNote;
    if (answer) io.stdout(answer.endsWith('\n') ? answer : answer + '\n');
  }
  if (interrupted && end?.stopReason !== 'cancelled') {
    io.stderr('deft: interrupted; the background work the agent started was stopped.\n');
    return 130;
  }
  if (!end) return 1;
  switch (end.stopReason) {
    case 'end_turn':
      return 0;
    case 'max_steps':
      io.stderr('deft: stopped at the --max-steps limit before the model finished.\n');
      return 0;
    case 'max_tokens':
      io.stderr('deft: the model hit its output token limit; the answer may be cut short.\n');
      return 0;
    case 'filtered':
      io.stderr('deft: the provider filtered the answer.\n');
      return 1;
    case 'cancelled':
      io.stderr('deft: interrupted.\n');
      return interrupted ? 130 : 1;
    case 'error':
      io.stderr(`deft: ${end.error?.message ?? 'the turn failed.'}\n`);
      return 1;
  }
}
