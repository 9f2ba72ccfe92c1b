import { sep } from 'node:path';
import { type Environment, type FileInfo, type ResolvedRead, errorCode, isMissing } from '#contract/environment';
import { ToolInputError } from '#contract/tool';
import { isSensitiveFile, isSensitivePath } from './sensitive';

export type PathIntent = 'read' | 'write' | 'search';

export interface PathGuardOptions {
  /** The machine the paths are on: links are resolved there. */
  environment: Environment;
  workspace: string;
  /** More folders that count as inside (e.g. skill folders, so a skill's own files are readable). */
  extraRoots?: () => readonly string[];
  /** Deft's home, whose secrets files are never touched. */
  deftHome?: string;
  /**
   * Read a regular file of at most this many bytes together with the path's facts, where the environment can do
   * both in one round trip (`Environment.readResolved`): the bytes come back as `content` only once the guard has
   * allowed the path on the facts that came with them.
   */
  prefetch?: number;
}

/** A path the tools may use: `real` is what is touched; `display` is what people and the model read. */
export interface GuardedPath {
  /** The path as given. */
  input: string;
  /** Absolute, normalised, `~` expanded — symlinks not followed. */
  lexical: string;
  /** With every existing symlink resolved (for a file that does not exist yet: its nearest existing parent, resolved). */
  real: string;
  /** Whether `real` lies inside the workspace or an extra root. */
  inside: boolean;
  /** Relative to the workspace when inside it, otherwise absolute. */
  display: string;
  /**
   * The file's stat when it was resolved: null when it is missing, absent when it could not be taken. A preview
   * may use it; what a tool does to the file stats it again when it runs.
   */
  info?: FileInfo | null;
  /**
   * The file's bytes and stat, read with the facts the guard decided on (`prefetch`): use them only while
   * `current()` says nothing may have changed the file since.
   */
  content?: Pick<ResolvedRead, 'bytes' | 'info' | 'current'>;
}

/** Whether `child` is `parent` or lies below it, on path-component boundaries. */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(prefix);
}

/** realpath of the path, or of its nearest existing ancestor with the missing tail appended. */
export async function realPathOf(environment: Environment, lexical: string): Promise<string> {
  const { dirname, join } = environment.path;
  const missing: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      const real = await environment.realpath(current);
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = dirname(current);
      if (parent === current) return lexical;
      missing.push(current.slice(parent.length).replace(/^[\\/]/, ''));
      current = parent;
    }
  }
}

/** A path realpath cannot resolve, as an error the model can act on (never a raw errno). */
function unresolvable(input: string, error: NodeJS.ErrnoException): Error {
  switch (error.code) {
    case 'ELOOP':
      return new ToolInputError(
        `"${input}" cannot be resolved: it goes through a symlink loop (links pointing at each other). Use a path that does not pass through that link.`,
      );
    case 'EACCES':
    case 'EPERM':
      return new ToolInputError(`"${input}" cannot be resolved: permission denied on a folder along the path. Use a path you have access to.`);
    case 'ENAMETOOLONG':
      return new ToolInputError(`"${input}" is too long for the file system (a name or the whole path exceeds its limit).`);
    default:
      return error;
  }
}

function expandHome(environment: Environment, path: string): string {
  if (path === '~') return environment.home;
  if (path.startsWith('~/') || path.startsWith('~\\')) return environment.path.join(environment.home, path.slice(2));
  return path;
}

/**
 * Resolve a path a tool was given, or refuse with a message the model can act on:
 * - inside the workspace a path may be relative; outside it must be absolute;
 * - symlinks are resolved, so a link inside the workspace that points outside counts as outside, and a
 *   write never follows a symlink out of the workspace;
 * - secret files (.env, private keys, cloud credentials) are refused whatever the path form.
 */
export async function guardPath(input: string, intent: PathIntent, options: PathGuardOptions): Promise<GuardedPath> {
  if (typeof input !== 'string' || input.trim() === '')
    throw new ToolInputError('The path is empty. Give a file path relative to the workspace, or an absolute path.');
  if (input.includes('\0')) throw new ToolInputError('The path contains a NUL character.');
  const { environment } = options;
  const { isAbsolute, relative, resolve } = environment.path;
  const expanded = expandHome(environment, input.trim());
  const absoluteInput = isAbsolute(expanded);
  const lexical = resolve(options.workspace, expanded);
  const roots = [options.workspace, ...(options.extraRoots?.() ?? [])];
  const lexicallyInside = roots.some((root) => isWithin(lexical, root));
  // With the file's bytes, where the environment answers all in one round trip: the open file's real path and stat,
  // and the roots'. Nothing of the bytes is used before the checks below have passed on those facts.
  // Not for a path refused whatever the machine says (a secret's name, a relative path out of the folder): its
  // bytes never come here.
  const worthReading = (absoluteInput || lexicallyInside) && !isSensitivePath(lexical, options.deftHome, options.workspace);
  const fetched =
    options.prefetch !== undefined && environment.readResolved && worthReading
      ? await environment.readResolved(lexical, roots, options.prefetch).catch(() => null)
      : null;
  // Otherwise asked together (one round trip on a remote machine): the path's real form, the roots', and the file's
  // stat — taken through `lexical`, whose links stat follows to the same file `real` names — for the secret-file check.
  const asked: Promise<[string, string[], FileInfo | null | undefined]> = fetched
    ? Promise.resolve([fetched.real, fetched.roots, fetched.info])
    : Promise.all([
        realPathOf(environment, lexical).catch((error: NodeJS.ErrnoException) => {
          throw unresolvable(input, error);
        }),
        Promise.all(roots.map((root) => realPathOf(environment, root))),
        environment.stat(lexical).catch((error: unknown) => (isMissing(error) ? null : undefined)),
      ]);
  asked.catch(() => {});
  const [real, realRoots, info] = await asked;
  const inside = realRoots.some((root) => isWithin(real, root));

  if (!absoluteInput && !lexicallyInside) {
    throw new ToolInputError(
      `"${input}" is outside the workspace (${options.workspace}). Paths relative to the workspace must stay inside it; to ${intent} outside the working directory you must provide an absolute path.`,
    );
  }
  if (lexicallyInside && !inside) {
    if (intent === 'write') {
      throw new ToolInputError(
        `"${input}" goes through a symlink to ${real}, outside the workspace. Writes never follow a symlink out of the workspace; write to the target's absolute path if you mean it.`,
      );
    }
    if (!absoluteInput) {
      throw new ToolInputError(
        `"${input}" is a symlink (or lies under one) that points outside the workspace, to ${real}. To ${intent} it, use that absolute path.`,
      );
    }
  }
  if (
    isSensitivePath(lexical, options.deftHome, options.workspace) ||
    (await isSensitiveFile(environment, real, {
      ...(options.deftHome ? { deftHome: options.deftHome } : {}),
      workspace: options.workspace,
      ...(info !== undefined ? { info } : {}),
      ...(fetched ? { head: fetched.bytes } : {}),
    }))
  ) {
    throw new ToolInputError(
      `"${input}" is a sensitive file (secrets such as .env files, private keys or cloud credentials). Deft's tools never ${intent} it; ask the user for the values you need.`,
    );
  }
  const display = inside && isWithin(real, realRoots[0]!) ? relative(realRoots[0]!, real) || '.' : real;
  const content = fetched ? { bytes: fetched.bytes, info: fetched.info, current: () => fetched.current() } : null;
  return { input, lexical, real, inside, display, ...(info !== undefined ? { info } : {}), ...(content ? { content } : {}) };
}
