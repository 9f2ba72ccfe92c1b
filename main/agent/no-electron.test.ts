import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('the agent core', () => {
  it('never imports electron, so it runs in plain Node (web host, CLI, tests)', async () => {
    const root = import.meta.dirname;
    const offenders: string[] = [];
    for (const file of await sourceFiles(root)) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (/(from\s+['"]electron(\/[^'"]*)?['"]|require\(\s*['"]electron|import\(\s*['"]electron)/.test(line))
          offenders.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders, `main/agent must not import electron:\n${offenders.join('\n')}`).toEqual([]);
  });
});
