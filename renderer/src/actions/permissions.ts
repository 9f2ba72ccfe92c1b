import { deft } from '../bridge';
import { usePermissions } from '../stores/permissions';
import { useSessions } from '../stores/sessions';
import { attempt } from './attempt';
import { loadHooks } from './hooks';

/** Trust the workspace, so its own settings files may allow tools and set the default mode. */
export function trustWorkspace(): Promise<void> {
  return attempt(async () => {
    const sessionId = useSessions.getState().currentId;
    const { permissions } = await deft.trustWorkspace(sessionId ? { sessionId } : {});
    usePermissions.getState().setRules(permissions);
    // The workspace's hooks run from now on: Settings and the banner show them so.
    await loadHooks();
  });
}

/** Read the rules (and their problems) and the default mode again. */
export function loadPermissions(): Promise<void> {
  return attempt(async () => {
    const { mode, permissions } = await deft.getPermissions({});
    usePermissions.getState().setDefaultMode(mode);
    usePermissions.getState().setRules(permissions);
  });
}
