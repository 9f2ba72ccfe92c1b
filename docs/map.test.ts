import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The developers' door stays true: every path the map of the code names exists, and every relative link in the
// README and docs/ reaches a file.
const root = resolve(import.meta.dirname, '..');
const docs = readdirSync(import.meta.dirname, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(import.meta.dirname, f));

/** The backticked paths in the first column of the map's table (a path, or a folder ending in /). */
function mapPaths(text: string): string[] {
  const map = text.slice(text.indexOf('## Map of the code'), text.indexOf('\n## ', text.indexOf('## Map of the code') + 1));
  return map
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => /^\| `([^`]+)`/.exec(line)![1]!);
}

describe('docs', () => {
  it('the map of the code names only paths that exist, and names the main ones', () => {
    const paths = mapPaths(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
    for (const folder of readdirSync(join(root, 'main/agent/capabilities'))) expect(paths).toContain(`main/agent/capabilities/${folder}/`);
    for (const folder of readdirSync(join(root, 'main/agent/infra'))) expect(paths).toContain(`main/agent/infra/${folder}/`);
  });

  it('every relative link of the README and docs/ reaches a file', () => {
    const broken: string[] = [];
    for (const file of [join(root, 'README.md'), ...docs]) {
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(resolve(dirname(file), target!))) broken.push(`${file.slice(root.length + 1)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('paths of the code named in backticks in the README and docs/ exist (a guide to files that moved is a trap)', () => {
    const missing: string[] = [];
    for (const file of [join(root, 'README.md'), ...docs]) {
      for (const [, path] of readFileSync(file, 'utf8').matchAll(
        /`((?:main|protocol|renderer|test-support|e2e|bench|preload|skills|scripts)\/[^`\s<>*{}]+)`/g,
      )) {
        if (!existsSync(join(root, path!))) missing.push(`${file.slice(root.length + 1)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
