import type { Places } from '#infra/policies/protected-paths';
import { type FactOp, RemoteFacts } from '#infra/sandbox/remote-facts';

/** Round trips a check may take to learn what it asks about a remote workspace's paths (a link chain, a glob). */
const MAX_ROUNDS = 4;

/**
 * Run a path check where the workspace is: on this machine as it is; on a remote one (`places.remote`) against facts
 * gathered there — real paths (links resolved), folder listings for globs — so a link there into `.git` is seen
 * there. The check runs, the facts it asked for and did not have are gathered in one round trip, and it runs again
 * until it asks nothing new. A hit found on the way stands (its path is protected as written, whatever more is learnt).
 */
export async function resolvedThere<T>(places: Places, check: (places: Places) => Promise<T> | T, hit: (result: T) => boolean): Promise<T> {
  const remote = places.remote;
  if (!remote) return check(places);
  const facts = new RemoteFacts();
  for (let round = 0; ; round++) {
    const result = await check({ ...places, fs: facts });
    if (!facts.wanted.size || hit(result)) return result;
    if (round >= MAX_ROUNDS) throw new Error(`The paths of this command could not be resolved on ${remote.label}: it did not run.`);
    await facts.gather(remote, new Map<string, Set<FactOp>>(facts.wanted));
  }
}
