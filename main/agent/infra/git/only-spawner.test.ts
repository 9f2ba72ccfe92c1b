import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every git Deft runs itself goes through infra/git/git.ts (hardened): shipped code has no other spawn of git.
const root = join(import.meta.dirname, '..', '..', '..', '..');
const HELPER = 'main/agent/infra/git/git.ts';

/** Shipped source files (tests and test support may run plain git to build their fixtures). */
function shippedFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'test-support' ? [] : shippedFiles(path);
    return /\.(ts|tsx|mjs|js|cjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const SPAWNS = /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync|execa|execaSync|execaCommand|execaCommandSync|fork)\s*\(/;
// A module loaded on first use (process.getBuiltinModule, issue 36) counts as one imported.
const PROCESS_MODULES = /from\s+['"](?:node:)?child_process['"]|from\s+['"]execa['"]|(?:require|getBuiltinModule)\(\s*['"](?:node:)?child_process['"]\s*\)/;
const GIT_PROGRAM =
  /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync|execa|execaSync|execaCommand|execaCommandSync)\s*\(\s*(['"`])git(?:\.exe)?(?:\1|\s)/;
const GIT_TEMPLATE = /\b(?:execa|execaSync|\$)\s*`git\b/;
const GIT_LITERAL = /(['"`])git(?:\.exe)?\1/;

/** Why a file looks like it runs git itself, or null. */
function gitSpawnIn(text: string): string | null {
  if (GIT_PROGRAM.test(text) || GIT_TEMPLATE.test(text)) return 'spawns git directly';
  if (PROCESS_MODULES.test(text) && SPAWNS.test(text) && GIT_LITERAL.test(text)) return "starts processes and names 'git'";
  return null;
}

describe('git runs only through the hardened helper', () => {
  it('the check finds a direct spawn, a spawn through a variable, and leaves other programs alone', () => {
    expect(gitSpawnIn("import { execFile } from 'node:child_process';\nexecFile('git', ['status']);")).toBe('spawns git directly');
    expect(gitSpawnIn("import { spawn } from 'node:child_process';\nconst bin = 'git';\nspawn(bin, ['log']);")).toBe("starts processes and names 'git'");
    expect(gitSpawnIn("import { execa } from 'execa';\nawait execa`git status`;")).toBe('spawns git directly');
    expect(gitSpawnIn("import { spawn } from 'node:child_process';\nspawn('rg', ['--files']);")).toBeNull();
    expect(gitSpawnIn("const bin = 'git';\nprocess.getBuiltinModule('node:child_process').spawn(bin, ['log']);")).toBe("starts processes and names 'git'");
    expect(gitSpawnIn("const safe = ['git', 'npm'];")).toBeNull();
  });

  it('no shipped file but infra/git/git.ts spawns git', () => {
    const offenders = ['main', 'bin', 'scripts', 'preload', 'protocol']
      .flatMap(shippedFiles)
      .map((path) => relative(root, join(root, path)))
      .filter((path) => path !== HELPER)
      .map((path) => ({ path, why: gitSpawnIn(readFileSync(join(root, path), 'utf8')) }))
      .filter((found) => found.why);
    expect(offenders).toEqual([]);
  });
});
