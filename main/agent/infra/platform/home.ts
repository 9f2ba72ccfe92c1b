import { homedir } from 'node:os';
import { resolve } from 'node:path';

/** Deft's data directory: `DEFT_HOME`, else `~/.deft`. */
export function deftHome(env: Record<string, string | undefined> = process.env): string {
  return env.DEFT_HOME?.trim() ? resolve(env.DEFT_HOME.trim()) : resolve(homedir(), '.deft');
}
