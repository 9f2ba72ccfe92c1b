import { DeftError } from '#protocol/helpers/bridge';
import type { HookAddInput, HookRef, HookTestResult, SandboxSettingsInput, SandboxSettingsView, SessionGrants } from '#protocol';
import { deft } from '../bridge';
import { useHooks } from '../stores/hooks';
import { useSettings } from '../stores/settings';
import { attempt } from './attempt';

/** What a Settings form shows after it sent a change: the new state, or the core's reason in words. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, message: DeftError.from(error).detail };
  }
}

/** This session's "allow for session" grants (Settings → Permissions). */
export const loadSessionGrants = (sessionId: string) => attempt(() => deft.listSessionGrants({ sessionId }));

/** Take one grant back: the next call it covered asks again. */
export const revokeSessionGrant = (sessionId: string, kind: 'rule' | 'domain', value: string): Promise<SessionGrants | undefined> =>
  attempt(() => deft.revokeSessionGrant({ sessionId, kind, value }));

/** Whether the sandbox is on here (and why not) and each settings file's section (Settings → Sandbox). */
export const loadSandboxSettings = () => attempt(() => deft.getSandboxSettings({}));

/** Change one file's sandbox section; the window's sandbox line follows (turned off or on again). */
export async function saveSandboxSettings(input: SandboxSettingsInput): Promise<Outcome<SandboxSettingsView>> {
  const done = await outcome(() => deft.setSandboxSettings(input));
  const workspace = useSettings.getState().workspace;
  if (done.ok && workspace) useSettings.getState().setWorkspace({ ...workspace, sandbox: done.value.status });
  return done;
}

/** Add a hook to one settings file; the list follows. */
export async function addHook(input: HookAddInput): Promise<Outcome<null>> {
  return outcome(async () => {
    useHooks.getState().setOverview(await deft.addHook(input));
    return null;
  });
}

/** Turn one hook entry off (listed, never run) or on again. */
export async function setHookDisabled(ref: HookRef, disabled: boolean): Promise<Outcome<null>> {
  return outcome(async () => {
    useHooks.getState().setOverview(await deft.setHookDisabled({ ...ref, disabled }));
    return null;
  });
}

/** Run one hook now with a sample event of its type (the user's click only). */
export const testHook = (ref: HookRef, sessionId: string): Promise<Outcome<HookTestResult>> => outcome(() => deft.testHook({ ...ref, sessionId }));
