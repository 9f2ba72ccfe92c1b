import { homedir } from 'node:os';
import type { Environment } from '#contract/environment';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { findImports, withoutBareImports } from './imports';
import { displayPath } from './display';
import { readInstructionFile } from './read-file';
import {
  DEFAULT_INSTRUCTION_LIMITS,
  type InstructionFile,
  type InstructionLimits,
  type InstructionProblem,
  type InstructionScope,
  type InstructionSet,
} from './types';

/** Where instruction files are looked for, and what the user allowed. All folders absolute. */
export interface InstructionContext {
  workspace: string;
  /** The top of the repository the workspace is in (the workspace when none). */
  projectRoot: string;
  deftHome: string;
  userHome?: string;
  /** Whether the user trusts the workspace: only then may its files import from the home folder. */
  trusted: boolean;
  limits?: Partial<InstructionLimits>;
  /**
   * The machine the workspace is on (default: this one). The project's and subfolders' files are read there; the
   * user's stay on this one. A remote workspace's files may not import from outside it (`~` there is not this home).
   */
  environment?: Environment;
}

/** A candidate file and the folders it (and what it imports) may be read from. */
export interface Candidate {
  path: string;
  scope: InstructionScope;
}

const REASONS = {
  outside: 'not read: it lies outside the folders instruction files may come from',
  sensitive: 'not read: it is a secret file',
  'not-a-file': 'not read: it is not a regular file',
  unreadable: 'not read: it could not be opened',
} as const;

/**
 * Reads a list of candidate files with their imports, each real file once: a file already read (or being
 * read: an import cycle) is not read again, imports go `maxImportDepth` deep at most, and the whole stays
 * under `maxTotalChars`. `seen` may start with the real paths of files the model already has.
 */
export class InstructionReader {
  readonly files: InstructionFile[] = [];
  readonly problems: InstructionProblem[] = [];
  private total = 0;
  private readonly limits: InstructionLimits;
  private readonly userHome: string;

  constructor(
    private readonly context: InstructionContext,
    private readonly seen: Set<string> = new Set(),
  ) {
    this.limits = { ...DEFAULT_INSTRUCTION_LIMITS, ...context.limits };
    this.userHome = context.userHome ?? homedir();
  }

  /** The real paths read so far (and those the reader started with). */
  get readPaths(): ReadonlySet<string> {
    return this.seen;
  }

  async read(candidates: readonly Candidate[]): Promise<InstructionSet> {
    for (const candidate of candidates) await this.readOne(candidate.path, candidate.scope, [], undefined, true);
    return { files: this.files, problems: this.problems };
  }

  private display(path: string): string {
    return displayPath(path, this.context.workspace, this.userHome);
  }

  /** Folders a file of this scope may be read from; imports of a workspace file reach the home only when the folder is trusted. */
  private roots(scope: InstructionScope, imported: boolean): string[] {
    const { projectRoot, deftHome, trusted } = this.context;
    if (scope === 'user') return [deftHome, this.userHome, ...(imported && !this.remote ? [projectRoot] : [])];
    return imported && trusted && !this.remote ? [projectRoot, this.userHome] : [projectRoot];
  }

  private get remote(): boolean {
    return this.context.environment !== undefined && this.context.environment.kind !== 'local';
  }

  private async readOne(path: string, scope: InstructionScope, chain: readonly string[], importedBy: string | undefined, topLevel: boolean): Promise<void> {
    const display = this.display(path);
    if (this.total >= this.limits.maxTotalChars) {
      this.problems.push({
        display,
        message: `not read: the instruction files together reached ${this.limits.maxTotalChars.toLocaleString('en-US')} characters`,
      });
      return;
    }
    const result = await readInstructionFile(path, {
      roots: this.roots(scope, !topLevel),
      maxChars: Math.min(this.limits.maxFileChars, this.limits.maxTotalChars - this.total),
      deftHome: this.context.deftHome,
      workspace: this.context.workspace,
      ...(scope !== 'user' && this.context.environment ? { environment: this.context.environment } : {}),
    });
    if (!result.ok) {
      // A missing candidate is simply not there; a missing import is often an @mention of a person, not a file.
      if (result.reason === 'missing') return;
      const hint =
        result.reason === 'outside' && !topLevel && scope !== 'user' && !this.context.trusted && !this.remote
          ? ' (imports from your home folder need the folder to be trusted)'
          : '';
      this.problems.push({ display, message: `${REASONS[result.reason]}${hint}` });
      return;
    }
    if (chain.includes(result.real)) {
      const names = [...chain.slice(chain.indexOf(result.real)), result.real].map((p) => this.display(p));
      this.problems.push({ display, message: `import cycle (${names.join(' → ')}): not followed again` });
      return;
    }
    if (this.seen.has(result.real)) return;
    this.seen.add(result.real);
    const imports = findImports(result.text);
    const already = new Set(imports.filter((spec) => this.seen.has(this.resolveImport(spec, dirname(path)))));
    let text = withoutBareImports(result.text, already);
    if (result.truncated)
      text = `${text}\n[Cut here: Deft reads ${this.limits.maxFileChars.toLocaleString('en-US')} characters of an instruction file, and this one is ${result.bytes.toLocaleString('en-US')} bytes. Read the rest with the Read tool if you need it.]`;
    if (text.trim()) {
      this.files.push({ path, display, scope, ...(importedBy ? { importedBy } : {}), text, bytes: result.bytes, truncated: result.truncated });
      this.total += text.length;
    }
    if (result.truncated)
      this.problems.push({
        display,
        message: `cut at ${this.limits.maxFileChars.toLocaleString('en-US')} characters (the file is ${result.bytes.toLocaleString('en-US')} bytes)`,
      });
    const depth = chain.length + 1;
    for (const spec of imports) {
      const target = this.resolveImport(spec, dirname(path));
      if (depth > this.limits.maxImportDepth) {
        this.problems.push({ display: this.display(target), message: `not imported: imports go at most ${this.limits.maxImportDepth} files deep` });
        continue;
      }
      await this.readOne(target, scope, [...chain, result.real], display, false);
    }
  }

  private resolveImport(spec: string, base: string): string {
    if (spec === '~' || spec.startsWith('~/')) return join(this.userHome, spec.slice(2));
    return isAbsolute(spec) ? resolve(spec) : resolve(base, spec);
  }
}
