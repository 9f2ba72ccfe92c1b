import { defaultMergeMessage, snapshotTree } from './merge';
import { type WorktreeMachine, localMachine } from './machine';
import type { WorktreeRecord } from './records';
import { git, nulList } from './run';

/** At most this much of the diff is sent to the model (the file list is always whole, up to its own cap). */
export const DRAFT_DIFF_CHARS = 12_000;
const DRAFT_FILES = 200;
/** A drafted message longer than this is cut (a subject and a short body is what is asked for). */
const DRAFT_MESSAGE_CHARS = 2_000;
/** The model has this long to answer; then the default message stands. */
export const DRAFT_TIMEOUT_MS = 20_000;

/** One short request to the configured model: its reply's text. Throws (or rejects) when it fails. */
export type AskModel = (request: { system: string; prompt: string; maxOutputTokens: number; signal: AbortSignal }) => Promise<string>;

export interface DraftedMessage {
  message: string;
  /** Whether the model wrote it (false: the default message, and `note` says why). */
  drafted: boolean;
  note?: string;
}

/** What the worktree changed against its base (committed or not, copied files left out): the file list and the patch, cut to `maxChars`. */
export async function mergeDiff(
  record: WorktreeRecord,
  maxChars = DRAFT_DIFF_CHARS,
  m: WorktreeMachine = localMachine(''),
): Promise<{ files: string[]; text: string; cut: boolean }> {
  const tree = await snapshotTree(m, record);
  const head = (await git(m, record.path, ['rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
  const baseRef = record.baseBranch ? `refs/heads/${record.baseBranch}` : record.baseCommit;
  const base = (await git(m, record.repoRoot, ['merge-base', baseRef, head], { okCodes: [0, 1] })).stdout.toString('utf8').trim() || record.baseCommit;
  const files = nulList((await git(m, record.path, ['diff', '--name-only', '-z', '--no-renames', base, tree])).stdout);
  const patch = (await git(m, record.path, ['diff', '--no-renames', '--no-color', '--no-ext-diff', base, tree])).stdout.toString('utf8');
  const cut = patch.length > maxChars;
  return { files, text: cut ? `${patch.slice(0, maxChars)}\n[… the diff is cut here: ${patch.length - maxChars} more characters]` : patch, cut };
}

const SYSTEM =
  'You write git commit messages. Reply with the commit message only: a subject line of at most 72 characters in the imperative mood, ' +
  'then, if useful, a blank line and a short body (at most a few lines) saying what changed and why. No code fences, no quotes, no preamble.';

/** A model's reply as a commit message: fences and quotes taken off, control characters dropped, lines trimmed, length capped. */
export function cleanDraft(reply: string): string {
  let text = reply.replace(/\r\n?/g, '\n').trim();
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '');
  if (/^(["'`]).*\1$/s.test(text)) text = text.slice(1, -1).trim();
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length && !lines[0]!.trim()) lines.shift();
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .slice(0, DRAFT_MESSAGE_CHARS)
    .trim();
}

/**
 * A merge's commit message drafted by the model from the worktree's diff against its base (a short, bounded
 * request), or the default message — with a note saying why — when there is no model, it fails, is slow, or
 * answers with nothing. Never throws.
 */
export async function draftMergeMessage(
  record: WorktreeRecord,
  options: { squash: boolean; sessionTitle?: string; ask?: AskModel; timeoutMs?: number; machine?: WorktreeMachine },
): Promise<DraftedMessage> {
  const fallback = (note: string): DraftedMessage => ({ message: defaultMergeMessage(record, options.squash), drafted: false, note });
  if (!options.ask) return fallback('No model is configured: the default message is filled in.');
  let diff: Awaited<ReturnType<typeof mergeDiff>>;
  try {
    diff = await mergeDiff(record, DRAFT_DIFF_CHARS, options.machine);
  } catch (error) {
    return fallback(`The diff could not be read (${(error as Error).message}): the default message is filled in.`);
  }
  if (!diff.files.length) return fallback('The worktree has no changes against its base: the default message is filled in.');
  const listed = diff.files.slice(0, DRAFT_FILES).join('\n') + (diff.files.length > DRAFT_FILES ? `\n… and ${diff.files.length - DRAFT_FILES} more` : '');
  const prompt = [
    `Write the commit message for ${options.squash ? 'one squashed commit of' : 'merging'} the branch ${record.branch} onto ${record.baseBranch ?? 'its base'}.`,
    options.sessionTitle ? `The session that made these changes was titled: ${options.sessionTitle}` : '',
    `Changed files (${diff.files.length}):\n${listed}`,
    `The diff${diff.cut ? ' (cut)' : ''}:\n${diff.text}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const timeoutMs = options.timeoutMs ?? DRAFT_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve('late');
      controller.abort();
    }, timeoutMs);
  });
  const tooLate = () => fallback(`The model did not answer within ${Math.round(timeoutMs / 1000)} s: the default message is filled in.`);
  try {
    const reply = await Promise.race([options.ask({ system: SYSTEM, prompt, maxOutputTokens: 400, signal: controller.signal }), late]);
    if (reply === 'late' || timedOut) return tooLate();
    const message = cleanDraft(reply);
    if (!message) return fallback('The model answered with no message: the default message is filled in.');
    return { message, drafted: true };
  } catch (error) {
    if (timedOut) return tooLate();
    return fallback(`The model could not draft a message (${(error as Error)?.message ?? String(error)}): the default message is filled in.`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
