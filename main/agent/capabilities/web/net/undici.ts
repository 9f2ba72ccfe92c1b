import type * as Undici from 'undici';

/**
 * undici, loaded the first time a page is fetched or a search is run rather than when Deft starts (it is
 * one of the heaviest modules the core would otherwise load at every start of the app, the web host and
 * the CLI).
 */
let loading: Promise<typeof Undici> | null = null;

export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
