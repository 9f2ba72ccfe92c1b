import { deft } from '../bridge';
import { useHooks } from '../stores/hooks';
import { attempt } from './attempt';

/** Read the hooks of the settings files again (Settings, and after the folder is trusted). */
export async function loadHooks(): Promise<void> {
  const overview = await attempt(() => deft.listHooks({}));
  if (overview) useHooks.getState().setOverview(overview);
}
