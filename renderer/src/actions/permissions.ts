import type { PermissionMode, RuleEdit, TrustedFolder } from '#protocol';
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

/** Add or remove a rule in one settings file; resolves to whether it was done (the banner says why not). */
export function editRule(change: RuleEdit): Promise<boolean> {
  return attempt(async () => {
    const { permissions } = await deft.editPermissionRule(change);
    usePermissions.getState().setRules(permissions);
    return true;
  }, false);
}

/** The default permission mode in ~/.deft/settings.json (null: none, so ask). */
export function setDefaultMode(mode: PermissionMode | null): Promise<void> {
  return attempt(async () => {
    const result = await deft.setDefaultMode({ mode });
    usePermissions.getState().setDefaultMode(result.mode);
    usePermissions.getState().setRules(result.permissions);
  });
}

export function listTrustedFolders(): Promise<TrustedFolder[]> {
  return attempt(async () => (await deft.listTrustedFolders()).folders, []);
}

/** Forget a folder's trust and approved rules; resolves to the folders left. */
export function forgetFolderTrust(path: string): Promise<TrustedFolder[] | null> {
  return attempt(async () => {
    const { folders, permissions } = await deft.forgetFolderTrust({ path });
    usePermissions.getState().setRules(permissions);
    return folders;
  }, null);
}
