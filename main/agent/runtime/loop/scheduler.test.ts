import { describe, expect, it } from 'vitest';
import { access } from '#contract/tool';
import { conflicts, schedule } from './scheduler';

describe('conflicts', () => {
  it('lets two reads of one file run together', () => {
    expect(conflicts(access.readFile('/w/a.ts'), access.readFile('/w/a.ts'))).toBe(false);
  });
  it('serialises a write with a read of the same path', () => {
    expect(conflicts(access.writeFile('/w/a.ts'), access.readFile('/w/a.ts'))).toBe(true);
  });
  it('treats paths case-insensitively and ignores trailing slashes', () => {
    expect(conflicts(access.writeFile('/W/A.ts'), access.readFile('/w/a.ts/'))).toBe(true);
  });
  it('sees a write under a recursive search as a conflict, and a sibling as none', () => {
    expect(conflicts(access.searchTree('/w/src'), access.writeFile('/w/src/x.ts'))).toBe(true);
    expect(conflicts(access.searchTree('/w/src'), access.writeFile('/w/srcx/x.ts'))).toBe(false);
  });
  it('makes a call without declared accesses exclusive', () => {
    expect(conflicts(undefined, access.none())).toBe(true);
    expect(conflicts(access.all(), access.readFile('/x'))).toBe(true);
    expect(conflicts(access.none(), access.none())).toBe(false);
  });
});

function job(log: string[], name: string, ms: number, accesses = access.none()) {
  return {
    accesses,
    run: async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      return name;
    },
  };
}

describe('schedule', () => {
  it('runs independent jobs in parallel and returns results in job order', async () => {
    const log: string[] = [];
    const settled: number[] = [];
    const results = await schedule([job(log, 'slow', 40), job(log, 'fast', 5)], (i) => settled.push(i));
    expect(results).toEqual(['slow', 'fast']);
    expect(log.slice(0, 2)).toEqual(['start slow', 'start fast']);
    expect(settled).toEqual([1, 0]);
  });

  it('keeps conflicting jobs in order and lets a later independent job pass', async () => {
    const log: string[] = [];
    await schedule([job(log, 'w1', 30, access.writeFile('/a')), job(log, 'w2', 5, access.writeFile('/a')), job(log, 'r', 5, access.readFile('/b'))]);
    expect(log.indexOf('end w1')).toBeLessThan(log.indexOf('start w2'));
    expect(log.indexOf('start r')).toBeLessThan(log.indexOf('end w1'));
  });

  it('runs an exclusive job alone', async () => {
    const log: string[] = [];
    const exclusive = { ...job(log, 'x', 10), accesses: undefined };
    await schedule([job(log, 'a', 10), exclusive, job(log, 'b', 10)]);
    expect(log).toEqual(['start a', 'end a', 'start x', 'end x', 'start b', 'end b']);
  });
});
