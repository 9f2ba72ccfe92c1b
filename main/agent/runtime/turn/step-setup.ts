import type { Environment } from '#contract/environment';
import type { Capability, SessionHandle } from '#contract/capability';
import type { Tool, ToolEnv } from '#contract/tool';
import { createProvider } from '#infra/providers/index';
import type { Session } from '#infra/sessions/session';
import type { ProviderConfig } from '#infra/settings/provider-config';
import { DEFAULT_CONTEXT_WINDOW, type StepSetup } from '../compaction/context-keeper';
import { sessionSystemPrompt } from '../prompt/session-prompt';
import { type WorkspaceFacts, buildSystemPrompt, workspaceFacts } from '../prompt/system-prompt';
import { loadInstructions } from '#infra/instructions/index';
import { instructionsSection } from '#infra/instructions/render';
import { selectedInHistory } from '../tools/deferred';
import { ToolRegistry } from '../tools/registry';
import { selectToolsTool } from '../tools/select-tools/select-tools';

export interface StepSetupDeps {
  environment: Environment;
  workspace: string;
  home: string;
  capabilities: readonly Capability[];
  now(): number;
  fetch?: typeof fetch;
  /** Extra tools for every session (tests); one with a capability tool's name stands in for it. */
  tools?: (env: ToolEnv) => Tool[];
  /** The machine and workspace facts for a new system prompt (default: read them now). */
  workspaceFacts?: () => Promise<WorkspaceFacts>;
  /** Set for a sub-agent's session: the tools its type allows, and its role as a section of the system prompt. */
  subagent?: { allowsTool: (name: string) => boolean; section: string };
}

/** What every model call in a session needs: the provider, the tools (and their environment), the system prompt, the window. */
export type SessionSetup = StepSetup & { env: ToolEnv; registry: ToolRegistry };

/** The setup of a session's model calls, built for a turn (and for a compaction). */
export async function stepSetup(deps: StepSetupDeps, session: Session, handle: SessionHandle, config: ProviderConfig): Promise<SessionSetup> {
  const provider = createProvider(config, deps.fetch);
  const env: ToolEnv = {
    environment: deps.environment,
    workspace: deps.workspace,
    home: deps.home,
    sessionId: session.id,
    sessionDir: session.dir,
    capabilities: provider.capabilities,
    extraRoots: () => deps.capabilities.flatMap((f) => f.readableRoots?.() ?? []),
    readDenials: async () => {
      const tests = await Promise.all(deps.capabilities.map((f) => f.readDenials?.(handle) ?? Promise.resolve(null)));
      const active = tests.filter((t) => t !== null);
      return (path) => {
        for (const test of active) {
          const rule = test(path);
          if (rule) return rule;
        }
        return null;
      };
    },
  };
  const reviewer = deps.capabilities.map((f) => f.changeReviewer?.(handle)).find((r) => r !== undefined);
  if (reviewer) env.reviewer = reviewer;
  const codeChecks = deps.capabilities.map((f) => f.codeChecks?.(handle)).find((c) => c !== undefined);
  if (codeChecks) env.codeChecks = codeChecks;
  const extra = deps.tools?.(env) ?? [];
  const replaced = new Set(extra.map((t) => t.name));
  const offered = [...extra, ...deps.capabilities.flatMap((f) => f.tools?.(handle, env) ?? []).filter((t) => !replaced.has(t.name))];
  // A sub-agent gets what its type allows, never a tool kept for the session's own agent (ToolPolicy.mainAgentOnly).
  const tools = deps.subagent ? offered.filter((t) => !t.policy.mainAgentOnly && deps.subagent!.allowsTool(t.name)) : offered;
  // Deferred tools the model loaded earlier in what it reads stay loaded.
  const registry = new ToolRegistry(tools, { selected: selectedInHistory(session.context) });
  if (registry.deferredNames().length) registry.add(selectToolsTool(registry));
  const render = async () => {
    const [facts, instructions, sections] = await Promise.all([
      deps.workspaceFacts ? deps.workspaceFacts() : workspaceFacts(deps.environment, deps.workspace),
      instructionsFor(deps),
      Promise.all(deps.capabilities.map(async (f) => f.systemPrompt?.(handle))),
    ]);
    const extra = sections.filter((s): s is string => Boolean(s));
    return buildSystemPrompt({ facts, instructions, tools: registry.schemas(), extra: deps.subagent ? [...extra, deps.subagent.section] : extra });
  };
  return {
    provider,
    env,
    registry,
    tools: registry.schemas(),
    contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    model: config.model,
    // Kept with the session: the same bytes at every step until a compaction or a change of the tools.
    system: () => sessionSystemPrompt(handle, registry.schemas(), render),
  };
}

/**
 * The system prompt's instruction files (infra/instructions): the user's own, here, and the workspace's, on the
 * machine it is on.
 */
async function instructionsFor(deps: StepSetupDeps): Promise<string | null> {
  return instructionsSection((await loadInstructions({ workspace: deps.workspace, deftHome: deps.home, environment: deps.environment })).files);
}
