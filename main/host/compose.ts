import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultCapabilities } from '../agent/capabilities';
import { type CoreOptions, DeftCore } from '../agent/runtime/core';
import { deftHome } from '../agent/infra/platform/home';
import { FileSecretStore } from '../agent/infra/settings/secrets';

/** Resolve a workspace argument to a real, existing directory, or explain why not. */
export function resolveWorkspace(path: string): string {
  const absolute = resolve(path);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new Error(`Workspace folder ${absolute} does not exist.`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`Workspace ${absolute} is not a folder.`);
  return real;
}

export interface NodeCoreOptions extends Partial<Omit<CoreOptions, 'workspace' | 'host'>> {
  workspace: string;
  host: CoreOptions['host'];
  env?: Record<string, string | undefined>;
}

/** The composition root shared by the plain-Node hosts (web, CLI). */
export function createNodeCore(options: NodeCoreOptions): DeftCore {
  const env = options.env ?? process.env;
  const home = options.home ?? deftHome(env);
  return new DeftCore({
    ...options,
    capabilities: options.capabilities ?? defaultCapabilities,
    home,
    // A folder on another machine was resolved there when it was opened (open-remote.ts).
    workspace: options.environment && options.environment.kind !== 'local' ? options.workspace : resolveWorkspace(options.workspace),
    secrets: options.secrets ?? FileSecretStore.inHome(home),
    providerOverrides: options.providerOverrides ?? {},
  });
}
