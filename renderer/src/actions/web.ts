import type { CommandInput, PublicWebSettings, WebSearchResult } from '#protocol';
import { deft } from '../bridge';

// Settings → Web shows these failures beside its fields, so they are thrown, not put in the banner.

/** The search provider (without its key) and the allowed private hosts. */
export function loadWebSettings(): Promise<PublicWebSettings> {
  return deft.getWebSettings({});
}

export function saveWebSettings(input: CommandInput<'setWebSettings'>): Promise<PublicWebSettings> {
  return deft.setWebSettings(input);
}

/** One search with the form's (unsaved) provider settings. */
export async function testWebSearch(input: CommandInput<'testWebSearch'>): Promise<WebSearchResult[]> {
  return (await deft.testWebSearch(input)).results;
}
