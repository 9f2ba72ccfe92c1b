import type { Environment } from '#contract/environment';
import { arch, release, type as osType } from 'node:os';
import { currentBranch, findRepositoryRoot } from '#infra/git/repository';
import identity from './identity.md?raw';

/** What the system prompt says about the machine and the workspace (the date is a fact, announced separately). */
export interface WorkspaceFacts {
  os: string;
  cwd: string;
  git: string | null;
}

/**
 * What the prompt says of git: the branch checked out, read from the repository's HEAD without running git
 * (a text-only turn starts no process); the model runs `git status` when the changes matter. Null outside a repository.
 */
export function gitSummary(cwd: string): string | null {
  const root = findRepositoryRoot(cwd);
  if (!root) return null;
  const branch = currentBranch(root);
  return branch ? `Branch: ${branch}` : null;
}

export async function workspaceFacts(environment: Environment, cwd: string): Promise<WorkspaceFacts> {
  // Deft's hardened git runs on this machine only; a remote workspace's status is left to the model's own commands.
  if (environment.kind !== 'local')
    return { os: `a remote machine reached over SSH (${environment.label}); paths and commands are that machine's`, cwd, git: null };
  return { os: `${osType()} ${release()} (${arch()})`, cwd, git: gitSummary(cwd) };
}

/** A local date as YYYY-MM-DD. */
export function localDate(ms: number): string {
  const now = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export interface SystemPromptParts {
  facts: WorkspaceFacts;
  /** The instruction files' section (infra/instructions), or null when there are none. */
  instructions: string | null;
  tools: ReadonlyArray<{ name: string; description: string }>;
  /** Further sections (skills listing, modes) added by later capabilities. */
  extra?: readonly string[];
}

/**
 * Identity, workspace facts, the instruction files and the tool list, in that order. It is written once for a
 * session and kept (runtime/prompt/session-prompt.ts), so it holds nothing that changes from step to step.
 */
export function buildSystemPrompt(parts: SystemPromptParts): string {
  const sections = [identity.trim()];
  const facts = [`- Operating system: ${parts.facts.os}`, `- Workspace (current directory): ${parts.facts.cwd}`];
  const git = parts.facts.git ? `\n\n## Git (run git status to see uncommitted changes)\n${parts.facts.git}` : '\n- Not a git repository.';
  sections.push(`# Environment\n${facts.join('\n')}${git}`);
  if (parts.instructions) sections.push(parts.instructions);
  if (parts.tools.length) {
    const list = parts.tools.map((t) => `- ${t.name}: ${firstSentence(t.description)}`).join('\n');
    sections.push(`# Tools\nYou can call these tools:\n${list}`);
  } else {
    sections.push('# Tools\nNo tools are available in this session; answer from the conversation alone.');
  }
  for (const extra of parts.extra ?? []) if (extra.trim()) sections.push(extra.trim());
  return sections.join('\n\n');
}

function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  const end = line.search(/\.(\s|$)/);
  return end >= 0 ? line.slice(0, end + 1) : line;
}
