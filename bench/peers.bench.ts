import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockModelServer } from '../test-support/mock-model-server';
import { tempDir } from '../test-support/harness';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { type ProcessCost, measureProcess } from './process-cost';
import type { BenchResult } from './types';

// Deft beside its peers (issue 36): the same one-shot text question to Deft, Claude Code and Codex, each against the
// same local mock model (Chat Completions, Anthropic Messages and OpenAI Responses), runs interleaved so that the
// machine's load falls on all three alike; CPU seconds (the process and every child it waited for) and peak RSS.
// The peers are not Deft's dependencies: install them into a folder and name it, e.g.
//   npm install --prefix /tmp/peers @anthropic-ai/claude-code @openai/codex && DEFT_BENCH_PEERS=/tmp/peers npm run bench -- peers

const RUNS = 5;
const PROMPT = 'What is this project?';

interface Contender {
  name: string;
  argv: (baseUrl: string) => string[];
  env: (baseUrl: string, home: string) => Record<string, string>;
}

function version(bin: string): string {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 }).trim().split('\n')[0]!;
  } catch {
    return bin;
  }
}

function contenders(peers: string | undefined): Contender[] {
  const deft: Contender = {
    name: 'Deft',
    argv: (baseUrl) => [process.execPath, join(root, 'bin/deft.mjs'), 'run', '--base-url', baseUrl, '--model', 'mock-model', PROMPT],
    env: (_, home) => ({ DEFT_HOME: home }),
  };
  if (!peers) return [deft];
  const list = [deft];
  const claude = join(peers, 'node_modules/.bin/claude');
  if (existsSync(claude))
    list.push({
      name: version(claude),
      argv: () => [claude, '-p', PROMPT, '--model', 'mock-model'],
      env: (baseUrl, home) => ({
        HOME: home,
        ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1$/, ''),
        ANTHROPIC_API_KEY: 'sk-bench',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      }),
    });
  const codex = join(peers, 'node_modules/.bin/codex');
  if (existsSync(codex))
    list.push({
      name: version(codex),
      argv: (baseUrl) => [
        codex,
        'exec',
        '--skip-git-repo-check',
        '-c',
        `model_providers.mock={name="mock",base_url="${baseUrl}",wire_api="responses",env_key="MOCK_API_KEY"}`,
        '-c',
        'model_provider="mock"',
        '-m',
        'mock-model',
        PROMPT,
      ],
      env: (_, home) => ({ HOME: home, CODEX_HOME: join(home, '.codex'), MOCK_API_KEY: 'sk-bench' }),
    });
  return list;
}

export default async function peers(): Promise<BenchResult[]> {
  const folder = process.env.DEFT_BENCH_PEERS;
  const list = contenders(folder);
  if (list.length === 1) {
    process.stderr.write(
      '  no peers to compare with: npm install --prefix /tmp/peers @anthropic-ai/claude-code @openai/codex, then DEFT_BENCH_PEERS=/tmp/peers\n',
    );
    return [];
  }
  ensureBuild();
  const server = new MockModelServer();
  await server.start();
  try {
    const workspace = await tempDir('deft-bench-peers-ws-');
    await writeFile(join(workspace, 'README.md'), '# A small project\n');
    const homes = await Promise.all(list.map(() => tempDir('deft-bench-peers-home-')));
    await Promise.all(homes.map((home) => mkdir(join(home, '.codex'), { recursive: true })));
    const run = (c: Contender, home: string) =>
      measureProcess(c.argv(server.baseUrl), { cwd: workspace, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...c.env(server.baseUrl, home) } });
    // One run each first (first-run files under each home), then interleaved runs.
    for (const [i, c] of list.entries()) {
      const first = await run(c, homes[i]!);
      if (first.code !== 0) throw new Error(`${c.name} exited with ${first.code}`);
    }
    const costs: ProcessCost[][] = list.map(() => []);
    for (let r = 0; r < RUNS; r++) for (const [i, c] of list.entries()) costs[i]!.push(await run(c, homes[i]!));
    const mid = (all: ProcessCost[], key: 'cpuMs' | 'wallMs' | 'rssMiB') => [...all.map((x) => x[key])].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
    const deft = costs[0]!;
    return list.slice(1).flatMap((c, k) => {
      const mine = costs[k + 1]!;
      return [
        {
          name: `one-shot text turn, ${c.name}: CPU`,
          value: mid(mine, 'cpuMs'),
          unit: 'ms',
          baseline: { name: 'Deft, the same turn', value: mid(deft, 'cpuMs') },
          note: `wall ${mid(mine, 'wallMs').toFixed(0)} vs ${mid(deft, 'wallMs').toFixed(0)} ms`,
        },
        {
          name: `one-shot text turn, ${c.name}: peak RSS`,
          value: mid(mine, 'rssMiB'),
          unit: 'MiB',
          baseline: { name: 'Deft, the same turn', value: mid(deft, 'rssMiB') },
        },
      ];
    });
  } finally {
    await server.close();
  }
}
