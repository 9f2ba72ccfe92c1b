import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { EffortSetting, PermissionMode } from '#protocol';
import { defaultCapabilities } from '../../agent/capabilities';
import { withSkillsOptions } from '../../agent/capabilities/skills/capability';
import { withMcpOptions } from '../../agent/capabilities/mcp/capability';
import { withApprovalsOptions } from '../../agent/capabilities/approvals/capability';
import { hiddenBy, hideTools, toolRules } from './tool-rules';
import { type AnswerSchema, loadAnswerSchema } from './json-schema';
import { promptToolApprover } from './permission-prompt';
import { appendToSystemPrompt } from './append-system-prompt';
import type { McpToolCaller } from '../../agent/capabilities/mcp/capability';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { deftHome } from '#infra/platform/home';
import { findSessionWorkspace } from '#infra/sessions/store';
import { type RemoteSpec, isRemoteFolderId, parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { createNodeCore } from '../compose';
import { cliHost } from '../hosts';
import { runCheckpointsCli } from './checkpoints-cli';
import { runMcpCli } from './mcp-cli';
import { createRunWorktree, remoteWorktreeFolder, runWorktreesCli } from './worktrees-cli';
import { runWorktreeResolve } from './worktrees-resolve';
import { runPluginCli } from './plugin-cli';
import { type ForkFlags, forkFlags, forkForRun } from './fork-cli';
import { HELP, USAGE } from './usage';
import { type CliIo, parseArgsOr } from './io';
import { type Format, type PermissionDenial, runPrompt, writeResult } from './run-turn';

export type { CliIo } from './io';

const PROVIDERS = ['openai', 'anthropic'];
const MODES = ['ask', 'accept-edits', 'yolo'];
const FORMATS = ['text', 'stream-json', 'json'];
const EFFORTS: EffortSetting[] = ['off', 'low', 'medium', 'high', 'max'];

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
      'json-schema': { type: 'string' },
      'permission-prompt-tool': { type: 'string' },
      'input-format': { type: 'string', default: 'text' },
      'allowed-tools': { type: 'string', multiple: true },
      allowedTools: { type: 'string', multiple: true },
      'disallowed-tools': { type: 'string', multiple: true },
      disallowedTools: { type: 'string', multiple: true },
      continue: { type: 'boolean', default: false },
      mailbox: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  return { values, positionals };
}

/** `deft run …` — one turn, headless; `deft rewind …` and `deft checkpoints …`. Returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'rewind' || argv[0] === 'checkpoints') return runCheckpointsCli(argv, io);
  if (argv[0] === 'mcp') return runMcpCli(argv, io);
  if (argv[0] === 'worktrees' && argv[1] === 'resolve') return runWorktreeResolve(argv, io, (run) => runCli(run, io));
  if (argv[0] === 'worktrees') return runWorktreesCli(argv, io);
  if (argv[0] === 'plugin' || argv[0] === 'plugins') return runPluginCli(argv, io);
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
        `unknown command "${command}". The commands are run, rewind, checkpoints, mcp, worktrees, plugin and acp; did you mean: deft run "<prompt>"?`,
      );
    const stdinJson = values['input-format'] === 'stream-json';
    if (values['input-format'] !== 'text' && !stdinJson) throw new UsageError('--input-format must be text or stream-json');
    if (stdinJson && values['output-format'] !== 'stream-json')
      throw new UsageError('--input-format stream-json needs --output-format stream-json (events and approvals go out as JSON lines)');
    if (stdinJson && !io.stdinLines) throw new UsageError('--input-format stream-json needs a stdin to read');
    let prompt = words.join(' ');
    if (prompt === '-' && io.readStdin && !stdinJson) prompt = await io.readStdin();
    // --mailbox: the prompt is the one another Deft posted to the session's mailbox (a handed-over worktree conflict).
    if (values.mailbox && (prompt.trim() || stdinJson || values.session === undefined || values['json-schema'] !== undefined || values.worktree !== undefined))
      throw new UsageError(
        '--mailbox runs what waits in the mailbox of the session --session names: no prompt of its own, no --input-format stream-json, --json-schema or --worktree',
      );
    if (!prompt.trim() && !stdinJson && !values.mailbox) throw new UsageError('a prompt is required: deft run "<prompt>"');
    if (stdinJson && values['json-schema'] !== undefined) throw new UsageError('--json-schema goes with one prompt, not with --input-format stream-json');
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
    // With --remote, --skills-dir and --mcp-config name this machine's folders and files (the user's own, read and run
    // here, as ~/.deft's); --mcp-server names a server of the remote folder's .mcp.json, which starts there.

    let schema: AnswerSchema | undefined;
    if (values['json-schema'] !== undefined) {
      try {
        schema = loadAnswerSchema(values['json-schema'], io.cwd);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
    // --allowed-tools / --disallowed-tools (and Claude Code's camelCase spellings): rules for this run only.
    let allowed: string[];
    let disallowed: string[];
    try {
      allowed = toolRules([...(values['allowed-tools'] ?? []), ...(values.allowedTools ?? [])], '--allowed-tools');
      disallowed = toolRules([...(values['disallowed-tools'] ?? []), ...(values.disallowedTools ?? [])], '--disallowed-tools');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }

    const promptTool = values['permission-prompt-tool'];
    if (promptTool !== undefined && !/^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$/.test(promptTool))
      throw new UsageError('--permission-prompt-tool must name an MCP tool: mcp__SERVER__TOOL (its server from --mcp-config)');
    let toolCaller: McpToolCaller | null = null;

    // A headless run reads the skill folders once: it watches nothing it will not use.
    let capabilities = withSkillsOptions(defaultCapabilities, { ...(skillsDirs.length ? { explicitDirs: skillsDirs } : {}), watch: false });
    // Headless: servers are waited for before the prompt; what was skipped or failed is said on stderr.
    capabilities = withMcpOptions(capabilities, {
      extraConfigs: mcpConfigs,
      headless: true,
      env: io.env,
      allowServers: values['mcp-server'] ?? [],
      ...(promptTool ? { exposeToolCaller: (caller: McpToolCaller) => (toolCaller = caller) } : {}),
    });
    // --append-system-prompt: the text as the last section of the system prompt (after every capability's).
    if (appendSystemPrompt !== undefined) capabilities = [...capabilities, appendToSystemPrompt(appendSystemPrompt)];

    let workspace = values.workspace ?? io.cwd;
    let worktree: { name: string; branch: string; path: string } | undefined;
    if (remoteSpec) {
      // SSH's packages load only for a remote folder.
      const { openRemoteForCli, remoteCapabilities } = await import('../remote-folder');
      // The headless skills (nothing watched) and MCP (servers waited for, what was skipped said on stderr) as locally.
      capabilities = remoteCapabilities(capabilities);
      try {
        remote = await openRemoteForCli(remoteSpec, io.env, { oneShot: true });
      } catch (error) {
        throw new RemoteError(`cannot open ${values.remote ?? `the folder of session ${values.session}`}: ${(error as Error).message}`);
      }
      for (const note of remote.notes) io.stderr(`deft: warning: ${note}\n`);
      const where = remote.environment.label;
      remote.environment.onSearchNotice((notice) => io.stderr(`deft: warning: ${notice}\n`));
      remote.environment.onConnectionState((state, detail) => {
        if (state === 'reconnecting') io.stderr(`deft: ${detail ?? `the connection to ${where} dropped`} Reconnecting…\n`);
        else if (state === 'connected') io.stderr(`deft: reconnected to ${where}.\n`);
        else if (detail) io.stderr(`deft: ${detail}\n`);
      });
    }
    if (values.worktree !== undefined) {
      // The session runs in a new worktree: the folder given (or this one, or the remote folder) only says which
      // repository. On a remote folder the worktree is made on that machine, and the session works there.
      const { record } = await createRunWorktree(io, remote ? remote.workspace : workspace, {
        ...(values.worktree ? { name: values.worktree } : {}),
        ...(values['worktree-base'] ? { base: values['worktree-base'] } : {}),
        hint: prompt,
        ...(remote ? { remote } : {}),
      }).catch((error: Error) => Promise.reject(new UsageError(error.message)));
      if (remote) remote = remoteWorktreeFolder(remote, record.path);
      else workspace = record.path;
      worktree = { name: record.name, branch: record.branch, path: record.path };
    }

    const denials: PermissionDenial[] = [];
    capabilities = withApprovalsOptions(capabilities, {
      allow: allowed,
      deny: disallowed,
      origin: { allow: '--allowed-tools', deny: '--disallowed-tools' },
      ...(promptTool ? { approver: promptToolApprover(promptTool, () => toolCaller, io.stderr) } : {}),
      onDenied: (call, message) => denials.push({ tool_name: call.name, tool_use_id: call.callId, tool_input: call.args, message }),
    });
    let extraTools = io.coreOptions?.tools;
    // The approver is not the model's to call.
    const hidden = [...disallowed, ...(promptTool ? [promptTool] : [])];
    if (hidden.length) ({ capabilities, tools: extraTools } = hideTools(capabilities, extraTools, hiddenBy(hidden)));

    let core;
    try {
      core = createNodeCore({
        workspace: remote ? remote.workspace : workspace,
        ...(remote ? { environment: remote.environment, workspaceId: remote.id } : {}),
        // Prompts on stdin: approvals are asked on stdout and answered on stdin, as the window answers them.
        host: stdinJson ? { ...cliHost(io.stderr), canAsk: true } : cliHost(io.stderr),
        env: io.env,
        providerOverrides: overrides,
        ...(values.sandbox ? { sandbox: values.sandbox } : {}),
        ...(maxSteps !== undefined ? { maxSteps } : {}),
        capabilities,
        // A prompt another core posted for the session this run shows runs after the run's own (infra/sessions/inbox.ts).
        inbox: 'shown',
        ...io.coreOptions,
        ...(extraTools ? { tools: extraTools } : {}),
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
          : `no OS sandbox ${values.remote ? 'there' : 'here'}: ${sandbox.reason ?? 'unknown'}${sandbox.install ? ` ${sandbox.install}` : ''}`;
        io.stderr(`deft: warning: commands run without the OS sandbox (${why}); only the permission rules apply.\n`);
      }
    };
    const run = {
      sessionId,
      startedAt,
      model: settings.provider.model,
      denials,
      ...(schema ? { schema } : {}),
      ...(worktree ? { worktree } : {}),
      ...(values.mailbox ? { fromMailbox: true } : {}),
    };
    if (stdinJson) {
      // Its reader first (readline drops lines read before its iterator exists), then its module, loaded only for
      // this mode: a one-prompt run does not evaluate the command schemas it imports.
      const lines = io.stdinLines!();
      const { runStdinSession } = await import('./stdin-json');
      return await runStdinSession(core, run, lines, io, warnAboutSandbox, prompt);
    }
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
