import { isAbsolute } from 'node:path';
import { type Environment, type FileInfo, isMissing } from '#contract/environment';
import { type GuardedPath, type PathIntent, guardPath } from '#infra/policies/path-guard';
import { exactRule, matchPathSubject } from '#infra/policies/rule-match';
import { type ToolEnv, ToolInputError } from '#contract/tool';

/** A file up to this size is read whole with the path guard's facts where the machine can (one round trip over SSH). */
export const PREFETCH_BYTES = 1024 * 1024;

/** Every path a file tool touches goes through the path guard, with the session's extra roots. */
export function guard(env: ToolEnv, path: string, intent: PathIntent, options: { prefetch?: number } = {}): Promise<GuardedPath> {
  return guardPath(path, intent, { environment: env.environment, workspace: env.workspace, extraRoots: env.extraRoots, deftHome: env.home, ...options });
}

/** approvalRule + matchesRule for a tool acting on one file: rules match its canonical absolute path or its workspace-relative form. */
export function pathRules(tool: string, path: GuardedPath): { approvalRule: string; matchesRule: (argument: string) => boolean } {
  const forms = { absolute: path.real, ...(isAbsolute(path.display) ? {} : { relative: path.display }) };
  return { approvalRule: exactRule(tool, path.real), matchesRule: (argument) => matchPathSubject(argument, forms) };
}

export async function statOrNull(environment: Environment, path: string): Promise<FileInfo | null> {
  try {
    return await environment.stat(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** The file's stats, or a refusal the model can act on when it is missing or not a regular file. */
export async function existingFile(environment: Environment, path: GuardedPath, missingHint: string): Promise<FileInfo> {
  const stats = await statOrNull(environment, path.real);
  if (!stats) throw new ToolInputError(`${path.display} does not exist. ${missingHint}`);
  if (stats.isDirectory()) throw new ToolInputError(`${path.display} is a directory, not a file. Use Glob to list the files in it.`);
  if (!stats.isFile()) throw new ToolInputError(`${path.display} is not a regular file (it is a device, socket or pipe), so the file tools do not open it.`);
  return stats;
}

/** Run a tool step, turning a ToolInputError into an error result with its message. */
export async function asToolError<T>(work: () => Promise<T>): Promise<T | { output: string; isError: true; display: { kind: 'error'; message: string } }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ToolInputError) return { output: error.message, isError: true, display: { kind: 'error', message: error.message } };
    throw error;
  }
}
