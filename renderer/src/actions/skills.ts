import { DeftError } from '#protocol/helpers/bridge';
import type { SkillSummary } from '#protocol';
import { deft } from '../bridge';
import { useSkills } from '../stores/skills';
import { useUi } from '../stores/ui';
import { inSession } from './sessions';

// Failures to read the catalog or a skill's files show in the gallery; a failed run shows in the banner.

/** Fetch the catalog (again). Concurrent calls share one request. */
let inflight: Promise<void> | null = null;
export function refreshSkills(rescan = false): Promise<void> {
  if (inflight && !rescan) return inflight;
  const run = deft
    .listSkills(rescan ? { rescan: true } : {})
    .then((catalog) => useSkills.getState().setCatalog(catalog))
    .catch((error: unknown) => useSkills.getState().setError(DeftError.from(error).detail))
    .finally(() => {
      if (inflight === run) inflight = null;
    });
  inflight = run;
  return run;
}

/** Run a skill as the user in the current session (a new one when none is open). Returns whether it started. */
export function runSkill(name: string, args: string): Promise<boolean> {
  return inSession(async (sessionId) => {
    useUi.getState().showBanner(null);
    await deft.runSkill({ sessionId, name, ...(args.trim() ? { args: args.trim() } : {}) });
    return true;
  }, false);
}

export async function viewSkillFile(skill: SkillSummary): Promise<void> {
  try {
    const { path, text } = await deft.readSkillFile({ name: skill.name });
    useSkills.getState().show({ kind: 'file', skill, path, text });
  } catch (error) {
    useSkills.getState().setError(DeftError.from(error).detail);
  }
}

/** Open the folder in the system file manager; where the host cannot, resolves to the path to show. */
export async function openSkillFolder(skill: SkillSummary): Promise<{ opened: boolean; path: string }> {
  try {
    return await deft.openSkillFolder({ name: skill.name });
  } catch (error) {
    useSkills.getState().setError(DeftError.from(error).detail);
    return { opened: false, path: skill.dir };
  }
}
