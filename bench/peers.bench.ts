import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type MockReply, MockModelServer, type RecordedRequest } from '../test-support/mock-model-server';
import { tempDir } from '../test-support/harness';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { type ProcessCost, measureProcess } from './process-cost';
import type { BenchResult } from './types';

// Deft beside its peers (issue 36): the same one-shot turns to Deft, Claude Code and Codex, each against the same
// local mock model (Chat Completions, Anthropic Messages and OpenAI Responses): a text answer, and a turn where the
// model runs one command (`ls`) or reads one file with the contender's own tool and then answers. Runs are
// interleaved so that the machine's load falls on all alike; CPU seconds (the process and every child it waited
// for), wall time and peak RSS. Every contender runs with its approvals answered (the tools allowed) and no sandbox,
// so that a step is the same work for all. The peers are not Deft's dependencies: install them into a folder and
// name it, e.g.
//   npm install --prefix /tmp/peers @anthropic-ai/claude-code @openai/codex && DEFT_BENCH_PEERS=/tmp/peers npm run bench -- peers

const RUNS = 5;
const README = '# A small project\n';
const DEFT_FLAGS = '--model mock-model --permission-mode yolo --sandbox off'.split(' ');

/** A scripted turn: what the user asks, and the tool call (if any) the model answers it with. */
interface Scenario {
  name: string;
  prompt: string;
  /** The call, in the contender's own tool: none for a text turn. */
  call?: 'shell' | 'read';
  /** What the tool's result must contain for the step to count as done. */
  expect?: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'text turn', prompt: 'What is this project?' },
  { name: 'shell step (`ls`, then answer)', prompt: 'List the files here (shell).', call: 'shell', expect: 'README.md' },
  { name: 'file read step (README.md, then answer)', prompt: 'Show me the readme (read).', call: 'read', expect: 'A small project' },
];

interface Contender {
  name: string;
  argv: (baseUrl: string, prompt: string) => string[];
  env: (baseUrl: string, home: string) => Record<string, string>;
  /** The protocol it speaks: which requests of the mock are its own. */
  protocol: 'chat' | 'anthropic' | 'responses';
  /** Its tool call for a shell command and for reading a file (Codex reads with the shell). */
  tool: (call: 'shell' | 'read', workspace: string) => { name: string; args: Record<string, unknown> };
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
    protocol: 'chat',
    // Tools allowed and no sandbox, as the peers below run.
    argv: (baseUrl, prompt) => [process.execPath, join(root, 'bin/deft.mjs'), 'run', '--base-url', baseUrl, ...DEFT_FLAGS, prompt],
    env: (_, home) => ({ DEFT_HOME: home }),
    tool: (call) => (call === 'shell' ? { name: 'Bash', args: { command: 'ls' } } : { name: 'Read', args: { path: 'README.md' } }),
  };
  if (!peers) return [deft];
  const list = [deft];
  const claude = join(peers, 'node_modules/.bin/claude');
  if (existsSync(claude))
    list.push({
      name: version(claude),
      protocol: 'anthropic',
      // --dangerously-skip-permissions is refused to root (as CI runs): the two tools allowed instead.
      argv: (_, prompt) => [claude, '-p', prompt, '--model', 'mock-model', '--allowedTools', 'Bash,Read'],
      env: (baseUrl, home) => ({
        HOME: home,
        ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1$/, ''),
        ANTHROPIC_API_KEY: 'sk-bench',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      }),
      tool: (call, workspace) =>
        call === 'shell'
          ? { name: 'Bash', args: { command: 'ls', description: 'List files' } }
          : { name: 'Read', args: { file_path: join(workspace, 'README.md') } },
    });
  const codex = join(peers, 'node_modules/.bin/codex');
  if (existsSync(codex))
    list.push({
      name: version(codex),
      protocol: 'responses',
      argv: (baseUrl, prompt) => [
        codex,
        'exec',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '-c',
        `model_providers.mock={name="mock",base_url="${baseUrl}",wire_api="responses",env_key="MOCK_API_KEY"}`,
        '-c',
        'model_provider="mock"',
        '-m',
        'mock-model',
        prompt,
      ],
      env: (_, home) => ({ HOME: home, CODEX_HOME: join(home, '.codex'), MOCK_API_KEY: 'sk-bench' }),
      tool: (call) => ({ name: 'exec_command', args: { cmd: call === 'shell' ? 'ls' : 'cat README.md' } }),
    });
  return list;
}

function protocolOf(request: RecordedRequest): Contender['protocol'] {
  const path = request.path.split('?')[0]!;
  return path.endsWith('/messages') ? 'anthropic' : path.endsWith('/responses') ? 'responses' : 'chat';
}

/** The text of the tool results in a request, in any of the three protocols (Anthropic's are user content parts). */
function toolResults(request: RecordedRequest): string {
  return request.body.messages
    .flatMap((m) =>
      m.role === 'tool'
        ? [m.content]
        : Array.isArray(m.content)
          ? (m.content as Array<{ type?: string; content?: unknown }>).filter((p) => p.type === 'tool_result').map((p) => p.content)
          : [],
    )
    .map((c) => (typeof c === 'string' ? c : JSON.stringify(c)))
    .join('\n');
}

/**
 * The mock's answers: a scenario is recognised by its prompt; a step's first request gets the contender's tool call,
 * a request carrying its result gets the final answer (and counts the step as done when the result is right).
 */
function script(list: Contender[], workspace: string, done: Map<string, number>) {
  return (request: RecordedRequest): MockReply => {
    const conversation = JSON.stringify(request.body.messages);
    const scenario = SCENARIOS.find((s) => conversation.includes(s.prompt));
    const contender = list.find((c) => c.protocol === protocolOf(request));
    if (!scenario?.call || !contender) return { chunks: [{ text: 'A small project.' }, { finish: 'stop' }] };
    const results = toolResults(request);
    if (results) {
      if (scenario.expect && results.includes(scenario.expect))
        done.set(`${contender.name}/${scenario.name}`, (done.get(`${contender.name}/${scenario.name}`) ?? 0) + 1);
      return { chunks: [{ text: 'It has a README.' }, { finish: 'stop' }] };
    }
    const { name, args } = contender.tool(scenario.call, workspace);
    return { chunks: [{ toolCall: { name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }] };
  };
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
    await writeFile(join(workspace, 'README.md'), README);
    const done = new Map<string, number>();
    server.fallback = script(list, workspace, done);
    const homes = await Promise.all(list.map(() => tempDir('deft-bench-peers-home-')));
    await Promise.all(homes.map((home) => mkdir(join(home, '.codex'), { recursive: true })));
    const run = (c: Contender, home: string, s: Scenario) =>
      measureProcess(c.argv(server.baseUrl, s.prompt), {
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...c.env(server.baseUrl, home) },
      });
    // One run of each first (first-run files under each home, and a check that every step really ran its tool).
    for (const s of SCENARIOS)
      for (const [i, c] of list.entries()) {
        const first = await run(c, homes[i]!, s);
        if (first.code !== 0) throw new Error(`${c.name}, ${s.name}: exited with ${first.code}`);
        if (s.call && !done.get(`${c.name}/${s.name}`)) throw new Error(`${c.name}, ${s.name}: the tool's result never reached the model`);
      }
    // costs[scenario][contender]: runs interleaved scenario by scenario, contender by contender.
    const costs: ProcessCost[][][] = SCENARIOS.map(() => list.map(() => []));
    for (let r = 0; r < RUNS; r++)
      for (const [k, s] of SCENARIOS.entries()) for (const [i, c] of list.entries()) costs[k]![i]!.push(await run(c, homes[i]!, s));
    for (const [k, s] of SCENARIOS.entries())
      for (const [i, c] of list.entries()) if (costs[k]![i]!.some((x) => x.code !== 0)) throw new Error(`${c.name}, ${s.name}: a run exited with an error`);
    const mid = (all: ProcessCost[], key: 'cpuMs' | 'wallMs' | 'rssMiB') => [...all.map((x) => x[key])].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
    const text = (i: number) => mid(costs[0]![i]!, 'cpuMs');
    const rows: BenchResult[] = [];
    for (const [k, s] of SCENARIOS.entries()) {
      const deft = costs[k]![0]!;
      for (const [i, c] of list.entries()) {
        if (i === 0) continue;
        const mine = costs[k]![i]!;
        const step = s.call
          ? `; the step alone (turn − text turn) ${(mid(mine, 'cpuMs') - text(i)).toFixed(0)} vs ${(mid(deft, 'cpuMs') - text(0)).toFixed(0)} ms; `
          : '; ';
        rows.push({
          name: `${s.name}, ${c.name}: CPU`,
          value: mid(mine, 'cpuMs'),
          unit: 'ms',
          baseline: { name: 'Deft, the same turn', value: mid(deft, 'cpuMs') },
          note: `wall ${mid(mine, 'wallMs').toFixed(0)} vs ${mid(deft, 'wallMs').toFixed(0)} ms${step}peak RSS ${mid(mine, 'rssMiB').toFixed(0)} vs ${mid(deft, 'rssMiB').toFixed(0)} MiB`,
        });
      }
    }
    return rows;
  } finally {
    await server.close();
  }
}
