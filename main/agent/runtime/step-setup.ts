import type { Feature, SessionHandle } from '../contract/feature';
import type { Tool, ToolEnv } from '../contract/tool';
import { createProvider } from '../infra/providers/index';
import type { Session } from '../infra/sessions/session';
import type { ProviderConfig } from '../infra/settings/provider-config';
import { DEFAULT_CONTEXT_WINDOW, type StepSetup } from './compaction/context-keeper';
import { buildSystemPrompt, readAgentsMd, workspaceFacts } from './prompt/system-prompt';
import { ToolRegistry } from './tools/registry';

export interface StepSetupDeps {
  workspace: string;
  home: string;
  features: readonly Feature[];
  now(): number;
  fetch?: typeof fetch;
  /** Extra tools for every session (tests); one with a feature tool's name stands in for it. */
  tools?: (env: ToolEnv) => Tool[];
}

/** What every model call in a session needs: the provider, the tools (and their environment), the system prompt, the window. */
export async function stepSetup(deps: StepSetupDeps, session: Session, handle: SessionHandle, config: ProviderConfig): Promise<StepSetup & { env: ToolEnv; registry: ToolRegistry }> {
  const provider = createProvider(config, deps.fetch);
  const env: ToolEnv = {
    workspace: deps.workspace,
    home: deps.home,
    sessionId: session.id,
    sessionDir: session.dir,
    capabilities: provider.capabilities,
    extraRoots: () => deps.features.flatMap((f) => f.readableRoots?.() ?? []),
  };
  const extra = deps.tools?.(env) ?? [];
  const replaced = new Set(extra.map((t) => t.name));
  const tools = [...extra, ...deps.features.flatMap((f) => f.tools?.(handle, env) ?? []).filter((t) => !replaced.has(t.name))];
  const registry = new ToolRegistry(tools);
  const [facts, agentsMd] = await Promise.all([workspaceFacts(deps.workspace, new Date(deps.now())), readAgentsMd(deps.workspace)]);
  const toolList = registry.schemas();
  return {
    provider,
    env,
    registry,
    tools: toolList,
    contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    model: config.model,
    system: async () => {
      const sections = await Promise.all(deps.features.map(async (f) => f.systemPrompt?.(handle)));
      return buildSystemPrompt({ facts, agentsMd, tools: toolList, extra: sections.filter((s): s is string => Boolean(s)) });
    },
  };
}
