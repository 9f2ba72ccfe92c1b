import type { Access } from '#contract/tool';

function normalise(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/\/+/g, '/')
    .toLowerCase()
    .replace(/(.)\/$/, '$1');
}

function overlaps(a: Extract<Access, { kind: 'file' }>, b: Extract<Access, { kind: 'file' }>): boolean {
  const pa = normalise(a.path);
  const pb = normalise(b.path);
  if (pa === pb) return true;
  const under = (child: string, parent: string) => child.startsWith(parent.endsWith('/') ? parent : parent + '/');
  return (a.recursive === true && under(pb, pa)) || (b.recursive === true && under(pa, pb));
}

const writes = (a: Extract<Access, { kind: 'file' }>) => a.operation === 'write' || a.operation === 'readwrite';

/** Two calls conflict when either is exclusive, or one writes a path the other touches. */
export function conflicts(a: Access[] | undefined, b: Access[] | undefined): boolean {
  if (!a || !b) return true;
  for (const x of a) {
    for (const y of b) {
      if (x.kind === 'all' || y.kind === 'all') return true;
      if ((writes(x) || writes(y)) && overlaps(x, y)) return true;
    }
  }
  return false;
}

export interface Job<T> {
  accesses?: Access[];
  run(): Promise<T>;
}

/**
 * Run jobs as parallel as their accesses allow. A job starts when it conflicts with no running job
 * and no job queued before it, so conflicting jobs keep their order. `onSettled` fires as each ends;
 * the returned array is in job order.
 */
export function schedule<T>(jobs: readonly Job<T>[], onSettled?: (index: number, value: T) => void): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  const pending = jobs.map((_, i) => i);
  const active = new Set<number>();
  let done = 0;
  return new Promise((resolve, reject) => {
    if (jobs.length === 0) return resolve(results);
    const pump = () => {
      for (let k = 0; k < pending.length; k++) {
        const i = pending[k]!;
        const job = jobs[i]!;
        const blocked =
          [...active].some((a) => conflicts(jobs[a]!.accesses, job.accesses)) || pending.slice(0, k).some((p) => conflicts(jobs[p]!.accesses, job.accesses));
        if (blocked) continue;
        pending.splice(k--, 1);
        active.add(i);
        job.run().then(
          (value) => {
            results[i] = value;
            active.delete(i);
            onSettled?.(i, value);
            if (++done === jobs.length) resolve(results);
            else pump();
          },
          (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
        );
      }
    };
    pump();
  });
}
