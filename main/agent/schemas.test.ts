import { localEnvironment } from './infra/environment/local/local-environment';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCapabilities } from './capabilities';
import type { CoreContext, SessionHandle } from './contract/capability';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileSecretStore } from './infra/settings/secrets';
import { tempDir } from '#test-support/harness';
import { inertSessionHandle, noWorkspaceSandbox } from '#test-support/session-handle';
import { ToolRegistry } from './runtime/tools/registry';
import { selectToolsTool } from './runtime/tools/select-tools/select-tools';
import type { ToolEnv } from './contract/tool';
import { BUILTIN_TYPES } from './capabilities/agents/types/builtin';
import { webHost } from '../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

/**
 * What the model is told about every built-in tool: names, descriptions and JSON Schemas. A change
 * here changes the model's behaviour, so it must be deliberate: update the snapshot on purpose
 * (`npx vitest run main/agent/tools/schemas.test.ts -u`) and review the diff.
 */
const scratch = await tempDir('deft-schemas-');
// A search provider is configured, so WebSearch is offered too.
await writeFile(join(scratch, 'settings.json'), JSON.stringify({ web: { search: { provider: 'searxng', baseUrl: 'http://127.0.0.1:1' } } }));
// A trusted folder with a package.json, so the LSP tool is offered inline (it is deferred elsewhere).
await writeFile(join(scratch, 'trust.json'), JSON.stringify({ folders: { [scratch]: { trusted: true } } }));
await writeFile(join(scratch, 'package.json'), '{}');
const core: CoreContext = {
  environment: localEnvironment(),
  workspace: scratch,
  place: workspacePlace(scratch),
  home: scratch,
  // A host with a window, so tools that need someone to answer (AskUserQuestion) are offered too.
  host: webHost,
  now: () => 0,
  emitApp: () => {},
  secrets: FileSecretStore.inHome(scratch),
  session: async () => {
    throw new Error('not in this test');
  },
  sandboxStatus: async () => ({ available: false, enabled: false }),
  workspaceSandbox: noWorkspaceSandbox(scratch),
};
const session: SessionHandle = inertSessionHandle('schema-session', scratch);
const env: ToolEnv = {
  environment: localEnvironment(),
  workspace: core.workspace,
  home: core.home,
  sessionId: session.id,
  sessionDir: session.dir,
  capabilities: { imageInput: true },
  extraRoots: () => [],
};

describe('tool schemas', async () => {
  const capabilities = defaultCapabilities.map((create) => create(core));
  for (const capability of capabilities) await capability.onSessionLoaded?.(session);
  const tools = capabilities.flatMap((capability) => capability.tools?.(session, env) ?? []);
  const registry = new ToolRegistry(tools);
  // select_tools is offered by the runtime whenever some tools are deferred.
  registry.add(selectToolsTool(registry));
  afterAll(() => Promise.all(capabilities.map(async (f) => f.close?.())));

  it('have unique names and closed objects', () => {
    expect(registry.names().length).toBe(tools.length + 1);
    for (const schema of registry.schemas()) {
      expect(schema.parameters, schema.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(schema.description.length, schema.name).toBeGreaterThan(80);
    }
  });

  it('every tool declares its policy (how it is approved, whether sub-agents may have it), as reviewed here', () => {
    const all = registry.names().map((name) => registry.get(name)!.tool);
    for (const tool of all) {
      expect(['rules', 'self', 'edit', 'goal-start'], tool.name).toContain(tool.policy?.approval);
      expect(typeof tool.policy.mainAgentOnly, tool.name).toBe('boolean');
    }
    const declared = Object.fromEntries(all.map((t) => [t.name, `${t.policy.approval}${t.policy.mainAgentOnly ? ', main agent only' : ''}`]));
    expect(declared).toEqual({
      AskUserQuestion: 'self, main agent only',
      EnterPlanMode: 'self, main agent only',
      ExitPlanMode: 'self, main agent only',
      TodoList: 'self',
      CreateGoal: 'goal-start, main agent only',
      GetGoal: 'self, main agent only',
      SetGoalBudget: 'self, main agent only',
      UpdateGoal: 'self, main agent only',
      Read: 'rules',
      Write: 'edit',
      Edit: 'edit',
      Grep: 'rules',
      Glob: 'rules',
      ReadMediaFile: 'rules',
      Bash: 'rules',
      TaskList: 'rules',
      TaskOutput: 'rules',
      TaskStop: 'rules',
      CronCreate: 'rules, main agent only',
      CronList: 'rules, main agent only',
      CronDelete: 'rules, main agent only',
      Skill: 'rules',
      FetchURL: 'rules',
      WebSearch: 'rules',
      LSP: 'rules',
      Agent: 'self, main agent only',
      AgentSwarm: 'self, main agent only',
      MergeAgentWork: 'rules, main agent only',
      select_tools: 'rules',
    });
  });

  it('the built-in sub-agent types name only tools that exist and that sub-agents may have', () => {
    const mayHave = new Set(registry.names().filter((name) => !registry.get(name)!.tool.policy.mainAgentOnly));
    for (const type of BUILTIN_TYPES) for (const name of type.tools) if (name !== '*') expect(mayHave, `${type.name}: ${name}`).toContain(name);
  });

  for (const schema of registry.schemas()) {
    it(`${schema.name} is what the model expects`, () => {
      expect(schema).toMatchSnapshot();
    });
  }
});
