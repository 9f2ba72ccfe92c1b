import { watch } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SkillCatalog } from '../main/agent/capabilities/skills/catalog';
import { scanRoot } from '../main/agent/capabilities/skills/scanner';
import { SkillService } from '../main/agent/capabilities/skills/service';
import { tempDir } from '../test-support/harness';
import { type BenchResult, median } from './types';

const COUNT = 1_000;
/** SkillService's default quiet time before a rescan. */
const DEBOUNCE_MS = 60;

function skillText(i: number, description = `Skill number ${i}: does one specific thing well, and says when to use it.`): string {
  return `---\nname: skill-${i}\ndescription: ${description}\nwhen-to-use: When task ${i} comes up.\narguments: [target]\n---\n\n# Skill ${i}\n\n${'Step with some instructions for the model.\n'.repeat(30)}`;
}

/** 1,000 skills: 900 folders directly in the root, 100 grouped two levels down, each with a scripts/ folder. */
export async function generateSkills(root: string): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const dir = i < 900 ? join(root, `skill-${i}`) : join(root, `group-${i % 10}`, 'nested', `skill-${i}`);
    await mkdir(join(dir, 'scripts'), { recursive: true });
    await writeFile(join(dir, 'scripts', 'run.sh'), 'echo run\n');
    await writeFile(join(dir, 'SKILL.md'), skillText(i));
    files.push(join(dir, 'SKILL.md'));
  }
  return files;
}

/** The floor for a cold scan: list the same folders and read the same files, no parsing. */
async function readAll(root: string): Promise<number> {
  let count = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((e) => e.name === 'SKILL.md')) {
      await readFile(join(dir, 'SKILL.md'), 'utf8');
      count++;
      return;
    }
    for (const e of entries) if (e.isDirectory()) await walk(join(dir, e.name));
  };
  await walk(root);
  return count;
}

function nextCatalog(service: SkillService, test: (c: SkillCatalog) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = service.onChange((c) => {
      if (test(c)) {
        off();
        resolve();
      }
    });
  });
}

function rawWatchLatency(file: string, text: string): Promise<number> {
  return new Promise((resolve) => {
    const watcher = watch(join(file, '..'), () => {
      watcher.close();
      resolve(performance.now() - t0);
    });
    const t0 = performance.now();
    void writeFile(file, text);
  });
}

/** Discovery of 1,000 skills from a cold cache, and how long a SKILL.md edit takes to reach the catalog. */
export default async function skillsBench(): Promise<BenchResult[]> {
  const workspace = await tempDir('deft-bench-skills-ws-');
  const home = await tempDir('deft-bench-skills-home-');
  const root = join(workspace, '.deft', 'skills');
  const files = await generateSkills(root);
  // Skill watchers never keep a process alive on their own (hosts do); this benchmark has nothing else running.
  const keepAlive = setInterval(() => {}, 1_000);
  try {
    const spec = { path: root, source: 'workspace' as const, watch: false };
    let found = 0;
    const cold = await median(5, async () => {
      const t0 = performance.now();
      found = (await scanRoot(spec)).skills.length;
      return performance.now() - t0;
    });
    if (found !== COUNT) throw new Error(`expected ${COUNT} skills, found ${found}`);
    const floor = await median(5, async () => {
      const t0 = performance.now();
      await readAll(root);
      return performance.now() - t0;
    });

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const service = new SkillService({ workspace, home, userHome: home, builtinDir: null });
    await service.ready();
    const startMs = performance.now() - t0;
    await service.watchReady();
    const watchMs = performance.now() - t0;
    gc?.();
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    const warm = await median(5, async () => {
      const t = performance.now();
      await service.rescan();
      return performance.now() - t;
    });

    const reload = await median(9, async () => {
      const i = Math.floor(Math.random() * COUNT);
      const description = `Edited ${performance.now()}`;
      const changed = nextCatalog(service, (c) => c.get(`skill-${i}`)?.description === description);
      const t = performance.now();
      await writeFile(files[i]!, skillText(i, description));
      await changed;
      return performance.now() - t;
    });
    await service.close();
    const raw = await median(9, () => rawWatchLatency(files[0]!, skillText(0, `raw ${performance.now()}`)));

    return [
      {
        name: `skill discovery, ${COUNT.toLocaleString('en-US')} skills (cold)`,
        value: cold,
        unit: 'ms',
        baseline: { name: 'readdir + readFile of the same files, no parsing', value: floor },
        note: `full rescan, warm cache ${warm.toFixed(0)} ms; first catalog ${startMs.toFixed(0)} ms, watcher ready (background) ${watchMs.toFixed(0)} ms; ~${heapMb.toFixed(1)} MiB heap`,
      },
      {
        name: `live reload: SKILL.md edit → catalog updated (${COUNT.toLocaleString('en-US')} skills watched)`,
        value: reload,
        unit: 'ms',
        baseline: { name: 'floor: raw fs.watch event + the 60 ms debounce', value: raw + DEBOUNCE_MS },
        note: `target ≤ 300 ms; raw fs.watch event alone ${raw.toFixed(2)} ms`,
      },
    ];
  } finally {
    clearInterval(keepAlive);
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
