import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

// The layer and cycle rules must keep failing the build when broken: these feed them deliberately bad code.
const root = join(import.meta.dirname, '..');

/** The project's ESLint config, only its boundary rules (no type information needed for them). */
const eslint = new ESLint({
  cwd: root,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => ruleId.startsWith('boundaries/'),
});

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layer rules (eslint-plugin-boundaries, in `npm run lint`)', () => {
  it('a capability importing another capability fails', async () => {
    expect(
      await layerErrors(
        'main/agent/capabilities/files/probe.ts',
        "import { shellCapability } from '../shell/capability';\nexport const x = shellCapability;\n",
      ),
    ).toEqual(['boundaries/dependencies: A capability never imports another capability: move what both need into contract/ or infra/.']);
    // From deep inside a capability (a tool's folder) too.
    expect(
      await layerErrors('main/agent/capabilities/goals/tools/get-goal/probe.ts', "import { todosOf } from '../../../todo/state';\nexport const x = todosOf;\n"),
    ).toHaveLength(1);
  });

  it('a capability importing the runtime fails; importing contract/, infra/ and itself passes', async () => {
    expect(
      await layerErrors('main/agent/capabilities/todo/probe.ts', "import type { DeftCore } from '../../runtime/core';\nexport type X = DeftCore;\n"),
    ).toEqual([
      'boundaries/dependencies: A capability imports contract/ and infra/ only, never runtime/: the runtime receives capabilities, not the other way round.',
    ]);
    const fine =
      "import { stateSlot } from '../../contract/state';\nimport { isWithin } from '../../infra/policies/path-guard';\nimport { todosOf } from './state';\nexport const x = [stateSlot, isWithin, todosOf];\n";
    expect(await layerErrors('main/agent/capabilities/todo/probe.ts', fine)).toEqual([]);
  });

  it('contract/ importing the runtime or infra fails, with no exception (the model vocabulary lives in contract/model.ts)', async () => {
    expect(
      await layerErrors('main/agent/contract/probe.ts', "import type { TurnSession } from '../runtime/loop/turn';\nexport type X = TurnSession;\n"),
    ).toEqual(['boundaries/dependencies: contract/ is what capabilities code against: it imports only protocol/.']);
    expect(
      await layerErrors('main/agent/contract/probe.ts', "import type { Session } from '../infra/sessions/session';\nexport type X = Session;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('main/agent/contract/probe.ts', "import type { ProviderError } from '../infra/providers/errors';\nexport type X = ProviderError;\n"),
    ).toHaveLength(1);
    expect(await layerErrors('main/agent/contract/probe.ts', "import type { ModelMessage } from './model';\nexport type X = ModelMessage;\n")).toEqual([]);
  });

  it('the runtime importing a capability, or anything but a host importing the default list, fails', async () => {
    expect(
      await layerErrors('main/agent/runtime/probe.ts', "import { todoCapability } from '../capabilities/todo/capability';\nexport const x = todoCapability;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('main/agent/runtime/probe.ts', "import { defaultCapabilities } from '../capabilities';\nexport const x = defaultCapabilities;\n"),
    ).toEqual(['boundaries/dependencies: The default capability list is for hosts (and tests) only.']);
    expect(
      await layerErrors('main/host/probe.ts', "import { defaultCapabilities } from '../agent/capabilities';\nexport const x = defaultCapabilities;\n"),
    ).toEqual([]);
  });

  it('infra/ importing the runtime, and protocol/ importing the app, fail', async () => {
    expect(await layerErrors('main/agent/infra/sessions/probe.ts', "import { Runs } from '../../runtime/turn/runs';\nexport const x = Runs;\n")).toHaveLength(
      1,
    );
    expect(
      await layerErrors('protocol/probe.ts', "import { CommandError } from '../main/agent/contract/errors';\nexport const x = CommandError;\n"),
    ).toHaveLength(1);
  });
});

describe('the same rules through the path aliases (package.json `imports`)', () => {
  it('an alias does not hide a layer break', async () => {
    expect(
      await layerErrors('main/agent/capabilities/todo/probe.ts', "import type { DeftCore } from '#runtime/core';\nexport type X = DeftCore;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('main/agent/contract/probe.ts', "import type { Session } from '#infra/sessions/session';\nexport type X = Session;\n"),
    ).toHaveLength(1);
    expect(await layerErrors('main/agent/infra/sessions/probe.ts', "import { Runs } from '#runtime/turn/runs';\nexport const x = Runs;\n")).toHaveLength(1);
    expect(await layerErrors('protocol/probe.ts', "import { CommandError } from '#contract/errors';\nexport const x = CommandError;\n")).toHaveLength(1);
    expect(
      await layerErrors(
        'main/agent/capabilities/todo/probe.ts',
        "import { stateSlot } from '#contract/state';\nimport { isWithin } from '#infra/policies/path-guard';\nexport const x = [stateSlot, isWithin];\n",
      ),
    ).toEqual([]);
  });
});

describe('the zod-free half of the protocol (no-restricted-imports, in `npm run lint`)', () => {
  const imports = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
    ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/no-restricted-imports',
  });
  const errors = async (filePath: string, code: string) => {
    const [result] = await imports.lintText(code, { filePath: join(root, filePath) });
    return result!.messages.map((m) => m.message);
  };

  it('protocol/helpers/ importing zod, or a schema as a value, fails; a schema type passes', async () => {
    expect(await errors('protocol/helpers/probe.ts', "import { z } from 'zod';\nexport const x = z;\n")).toEqual([expect.stringContaining('stays zod-free')]);
    expect(await errors('protocol/helpers/probe.ts', "import { Usage } from '../schemas/session';\nexport const x = Usage;\n")).toEqual([
      expect.stringContaining('for their types only'),
    ]);
    expect(await errors('protocol/helpers/probe.ts', "import { Usage } from '..';\nexport const x = Usage;\n")).toHaveLength(1);
    expect(await errors('renderer/src/stores/probe.ts', "import { Usage } from '#protocol';\nexport const x = Usage;\n")).toEqual([
      expect.stringContaining('Only types from the zod schemas'),
    ]);
    expect(await errors('renderer/src/stores/probe.ts', "import { sessionDir } from '#infra/sessions/store';\nexport const x = sessionDir;\n")).toEqual([
      expect.stringContaining('only through window.deft'),
    ]);
    expect(await errors('renderer/src/stores/probe.ts', "import type { Usage } from '#protocol';\nexport type X = Usage;\n")).toEqual([]);
    expect(await errors('main/agent/capabilities/todo/probe.ts', "import { TodoItem } from '#protocol';\nexport const x = TodoItem;\n")).toEqual([
      expect.stringContaining('builds every schema at start'),
    ]);
    expect(
      await errors('main/host/cli/probe.ts', "import { type Usage, TodoItem } from '#protocol';\nexport const x: Usage | typeof TodoItem = TodoItem;\n"),
    ).toHaveLength(1);
    expect(
      await errors(
        'main/agent/capabilities/todo/probe.ts',
        "import type { Usage } from '#protocol';\nimport { TodoItem } from '#protocol/schemas/todo';\nexport const x: Usage | typeof TodoItem = TodoItem;\n",
      ),
    ).toEqual([]);
    expect(
      await errors(
        'protocol/helpers/probe.ts',
        "import type { Usage } from '../schemas/session';\nimport { commandNames } from './names';\nexport type X = Usage;\nexport const y = commandNames;\n",
      ),
    ).toEqual([]);
  });
});

describe('files and processes only through the Environment (no-restricted-imports, in `npm run lint`)', () => {
  const imports = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  });
  const errors = async (filePath: string, code: string) => {
    const [result] = await imports.lintText(code, { filePath: join(root, filePath) });
    return result!.messages.map((m) => m.message);
  };

  it('a file tool or the shell importing node:fs, child_process or execa fails; the local backend may', async () => {
    const fs = "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n";
    expect(await errors('main/agent/capabilities/files/tools/read/probe.ts', fs)).toEqual([expect.stringContaining("go through the session's Environment")]);
    expect(
      await errors('main/agent/capabilities/shell/tools/bash/probe.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n"),
    ).toHaveLength(1);
    expect(await errors('main/agent/infra/policies/path-guard.ts', "import { execa } from 'execa';\nexport const x = execa;\n")).toHaveLength(1);
    expect(await errors('main/agent/capabilities/files/probe.ts', "import { x } from 'electron';\nexport const y = x;\n")).toEqual([
      expect.stringContaining('plain Node'),
    ]);
    expect(await errors('main/agent/infra/environment/local/probe.ts', fs)).toEqual([]);
  });
});

describe('import cycles (dependency-cruiser, in `npm run lint`)', () => {
  const require = createRequire(import.meta.url);
  const config = require(join(root, '.dependency-cruiser.cjs')) as { forbidden: unknown[]; options: Record<string, unknown> };
  const scratch = join(tmpdir(), `deft-cycle-probe-${process.pid}`);
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  async function violations(files: Record<string, string>): Promise<string[]> {
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    for (const [name, text] of Object.entries(files)) await writeFile(join(scratch, name), text);
    const { output } = await cruise([scratch], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
    const summary = (output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } }).summary;
    return summary.violations.map((v) => `${v.rule.name}: ${v.from.replace(/^.*\//, '')} → ${v.to.replace(/^.*\//, '')}`);
  }

  it('a 2-file cycle fails', async () => {
    const found = await violations({
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': "import { a } from './a';\nexport const b = 1;\nexport const c = () => a;\n",
    });
    expect(found.length).toBeGreaterThan(0);
    for (const violation of found) expect(['no-circular: a.ts → b.ts', 'no-circular: b.ts → a.ts']).toContain(violation);
  });

  it('a cycle made of type-only imports fails too', async () => {
    const found = await violations({
      'b.ts': "import type { A } from './types';\nexport const b = 1;\nexport type B = A;\n",
      'types.ts': "import type { B } from './b';\nexport type A = B | number;\n",
    });
    expect(found.length).toBeGreaterThan(0);
    for (const violation of found) expect(['no-circular: b.ts → types.ts', 'no-circular: types.ts → b.ts']).toContain(violation);
  });

  it('a cycle through a path alias (package.json `imports`) fails too', async () => {
    const found = await violations({
      'package.json': JSON.stringify({ name: 'probe', type: 'module', imports: { '#a': './a.ts' } }),
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': "import { a } from '#a';\nexport const b = 1;\nexport const c = () => a;\n",
    });
    expect(found.length).toBeGreaterThan(0);
    for (const violation of found) expect(['no-circular: a.ts → b.ts', 'no-circular: b.ts → a.ts']).toContain(violation);
  });

  it('a tree without a cycle passes', async () => {
    expect(await violations({ 'a.ts': "import { b } from './b';\nexport const a = b + 1;\n", 'b.ts': 'export const b = 1;\n' })).toEqual([]);
  });
});
