import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The renderer's layer rules (eslint.config.js), tried on imports each layer must not make.
const root = new URL('../../', import.meta.url).pathname;
// The probes are not files on disk, so they are linted without type information.
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

async function refused(file: string, from: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import * as probe from '${from}';\nexport { probe };\n`, { filePath: `${root}renderer/src/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('renderer layers', () => {
  it.each([
    ['stores/probe.ts', '../features/dock/Dock', 'never import views'],
    ['stores/probe.ts', '../components/Icon', 'never import views'],
    ['stores/probe.ts', '../App', 'never import views'],
    ['stores/probe.ts', '../actions/sessions', 'commands live in actions/'],
    ['stores/probe.ts', '../bridge', 'not straight to the bridge'],
    ['actions/probe.ts', '../features/tasks/TasksPanel', 'never import views'],
    ['features/tasks/probe.ts', '../../bridge', 'not straight to the bridge'],
    ['App.tsx', './bridge', 'not straight to the bridge'],
    ['components/probe.ts', '../stores/sessions', 'take what they show as props'],
    ['components/probe.ts', '../features/dock/Dock', 'take what they show as props'],
    ['stores/probe.ts', '../../../protocol/schemas/events', 'Only types from the zod schemas'],
    ['stores/probe.ts', '../../../protocol', 'Only types from the zod schemas'],
  ])('%s may not import %s', async (file, from, reason) => {
    expect(await refused(file, from)).toEqual([expect.stringContaining(reason)]);
  });

  it.each([
    ['stores/bind.ts', '../bridge'],
    ['stores/probe.ts', '../../../protocol/helpers/bridge'],
    ['stores/probe.ts', '../../../protocol/helpers/units'],
    ['actions/probe.ts', '../stores/sessions'],
    ['actions/probe.ts', '../bridge'],
    ['features/tasks/probe.ts', '../../actions/tasks'],
    ['features/tasks/probe.ts', '../../stores/tasks'],
    ['features/tasks/probe.ts', '../files/attachments'],
  ])('%s may import %s', async (file, from) => {
    expect(await refused(file, from)).toEqual([]);
  });
});
