import type { LspStatus } from '#protocol';
import { deft } from '../bridge';
import { attempt } from './attempt';

/** The language servers and their state (Settings → Code intelligence). */
export function loadLspStatus(): Promise<LspStatus | null> {
  return attempt(() => deft.lspStatus({}), null);
}

/** Turn one language's server on or off; resolves to the new status. */
export function setLspLanguage(language: string, enabled: boolean): Promise<LspStatus | null> {
  return attempt(() => deft.setLspLanguage({ language, enabled }), null);
}
