import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../../scripts/ensure-build.mjs';
import { WEB_HOST_NODE_FLAGS } from '../../../scripts/host-flags.mjs';

/** The young generation's size (MiB) in a Node started with `flags` after a burst of allocation that survives. */
function youngGenerationAfterBurst(flags: string[]): number {
  const script = `const keep = []; for (let i = 0; i < 6e5; i++) keep.push({ i });
    const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / 1048576));`;
  return Number(execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }));
}

describe('the web host’s V8 flags', () => {
  it('are the flags `npm start` and `npm run web` start Node with', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(['node', ...WEB_HOST_NODE_FLAGS, 'scripts/start.mjs'].join(' '));
    expect(scripts.web).toBe(['node', ...WEB_HOST_NODE_FLAGS, 'scripts/web.mjs'].join(' '));
  });

  it('keep the young generation small after a burst of allocation (without them it grows to its default largest)', { timeout: 60_000 }, () => {
    expect(youngGenerationAfterBurst(WEB_HOST_NODE_FLAGS)).toBeLessThanOrEqual(8);
    expect(youngGenerationAfterBurst([])).toBeGreaterThan(8);
  });
});
