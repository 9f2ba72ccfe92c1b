// A host process for bench/checkpoints-repo.bench.ts: a window's long-running core (webHost) on the 20,000-file
// repository, with checkpoints on or off (the home's settings say). It warms up as a window does (the session is
// loaded, a first turn runs), then runs the measured turns — Write 1 file, 1 file by a command, 500 by a command —
// and prints one JSON line: each turn's CPU (this process and every child it waited for: git, the shells), in ms.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockModelServer } from '../test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { createNodeCore } from '../main/host/compose';
import { webHost } from '../main/host/hosts';
import { random, sourceText } from './generate-repo';

const [home, workspace, runs] = process.argv.slice(2) as [string, string, string];
const pathOf = (i: number) => `src/m${Math.floor(i / 1000)}/d${Math.floor(i / 50) % 20}/f${i}.ts`;

/** CPU of this process and of its waited-for children so far, ms (/proc/self/stat: utime, stime, cutime, cstime). */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / 100;
}

// Nobody answers approvals here, and commands run without the OS sandbox, as the CLI rows run them (yolo, --sandbox off).
const settingsFile = join(home, 'settings.json');
let settings: Record<string, unknown> = {};
try {
  settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
} catch {
  // none yet
}
writeFileSync(settingsFile, JSON.stringify({ ...settings, permissions: { defaultMode: 'yolo' } }));
const server = new MockModelServer();
const baseUrl = await server.start();
const core = createNodeCore({ home, workspace, host: webHost, sandbox: 'off' });
await core.handlers.setSettings({ provider: { kind: 'openai', baseUrl, model: 'mock-model', apiKey: 'bench' } });
const { session } = await core.handlers.createSession({});
const next = random(11);
const turn = async (...steps: ReturnType<typeof toolStep>[]) => {
  server.enqueue(...steps, textReply('Done.'));
  const before = cpuMs();
  const { turnId } = await core.handlers.sendPrompt({ sessionId: session.id, text: 'turn' });
  await core.turnDone(session.id);
  void turnId;
  return cpuMs() - before;
};
const write = (path: string) => [
  toolStep(callChunk('Read', { path: join(workspace, path) })),
  toolStep(callChunk('Write', { path: join(workspace, path), content: sourceText(next, 4_200) })),
];
// (Appending with tee, not a loop over $f: a window asks before a command whose paths only a shell expansion knows.)
// Warm-up, as a window: the first turn (the store's baseline, the watch's walk) and one of each kind.
const many = Array.from({ length: 500 }, (_, i) => pathOf(i * 40 + 9)).join(' ');
await turn(...write(pathOf(7)));
await turn(toolStep(callChunk('Bash', { command: `echo warm >> ${pathOf(8)}` })));
await turn(toolStep(callChunk('Bash', { command: `echo warm | tee -a ${many} > /dev/null` })));
const costs: Record<string, number[]> = { write: [], shell: [], shell500: [] };
for (let i = 1; i <= Number(runs); i++) {
  costs.write!.push(await turn(...write(pathOf(400 + i))));
  costs.shell!.push(await turn(toolStep(callChunk('Bash', { command: `echo ${i} >> ${pathOf(500 + i)}` }))));
  costs.shell500!.push(await turn(toolStep(callChunk('Bash', { command: `echo ${i} | tee -a ${many} > /dev/null` }))));
}
console.log(JSON.stringify(costs));
// What the window leaves running (the store's later copy of borrowed objects, timers) is not waited for.
await Promise.race([core.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
await server.close().catch(() => {});
process.exit(0);
