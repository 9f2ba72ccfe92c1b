import { relative, sep } from 'node:path';
import type { CodeChecks, WriteCheck } from '#contract/code-checks';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { describeIntroduced, introducedProblems, problemsOf } from '#infra/lsp/diagnostics';
import { languageFamily, languageOf } from '#infra/lsp/languages';
import type { LanguageServers } from '#infra/lsp/servers';
import type { LspSettings } from './settings';

/** How long a check may go on after the tool result went back without it (its answer then arrives as a late note). */
const LATE_LIMIT_MS = 60_000;

export interface CodeCheckDeps {
  workspace: string;
  servers: LanguageServers;
  settings(): Promise<LspSettings>;
  /** A message for the model at the next step (late diagnostics, a server turned off). */
  inject(text: string): void;
  /** Notices not yet told to this session's model (a server turned off after crashing). */
  takeNotices(): string[];
  /** A file's text to open in its server (on the workspace's machine): null when missing, not a file, or too large. */
  readSmallText(path: string): Promise<string | null>;
  /** What to install where when no server for the file's language was found on the workspace's machine, else null. */
  missingServer?(path: string): Promise<string | null>;
}

/** Whether the settings let a server check this file. */
export function servesFile(settings: LspSettings, path: string): boolean {
  if (!settings.enabled) return false;
  const language = languageOf(path);
  return !language || !settings.disabledLanguages.some((l) => languageFamily(l) === languageFamily(language));
}

/** The path as the model knows it: workspace-relative inside it. */
export function displayPath(workspace: string, path: string): string {
  const rel = relative(workspace, path);
  return rel && !rel.startsWith('..') && !rel.startsWith(sep) ? rel.split(sep).join('/') : path;
}

/** What a server found: the problems a write introduced, whether it saw the file before, and which server. */
interface Finding {
  server: string;
  problems: ReturnType<typeof problemsOf>;
  checkedBefore: boolean;
}

/**
 * The file tools' code checks for one session, on the workspace's language servers. Work on one file is done in
 * order (a Read's background open never lands after the Edit that followed it).
 */
export function sessionCodeChecks(deps: CodeCheckDeps): CodeChecks {
  const queues = new Map<string, Promise<unknown>>();
  const inOrder = <T>(path: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(path) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    const settled = next.catch(() => {});
    queues.set(path, settled);
    void settled.then(() => {
      if (queues.get(path) === settled) queues.delete(path);
    });
    return next;
  };

  const check = async (path: string, before: string | null, after: string, warnings: boolean): Promise<Finding | null> => {
    const got = await deps.servers.clientFor(path);
    if (!got.client) return null;
    const client = got.client;
    const limit = Date.now() + LATE_LIMIT_MS;
    let baseline: Diagnostic[] | null = [];
    if (before !== null) {
      if (client.textOf(path) !== before) await client.sync(path, before);
      baseline = await client.currentDiagnostics(path, limit);
    }
    await client.sync(path, after);
    const current = await client.currentDiagnostics(path, limit);
    if (!current) return null;
    const problems = baseline ? introducedProblems(baseline, current, warnings) : problemsOf(current, warnings);
    return { server: client.spec.id, problems, checkedBefore: baseline !== null };
  };

  const noticeText = () => deps.takeNotices().join('\n');
  // Said once per session and language: no server was found for it (on the remote machine), and what to install.
  const toldMissing = new Set<string>();

  return {
    touched(path) {
      void inOrder(path, async () => {
        if (!servesFile(await deps.settings(), path)) return;
        const text = await deps.readSmallText(path);
        if (text === null) return;
        const got = await deps.servers.clientFor(path);
        if (got.client && got.client.textOf(path) !== text) await got.client.sync(path, text);
      }).catch(() => {});
    },

    async afterWrite(path, before, after, signal): Promise<WriteCheck | null> {
      const settings = await deps.settings();
      if (!servesFile(settings, path) || signal.aborted) return null;
      const absent = await deps.missingServer?.(path);
      if (absent) {
        if (toldMissing.has(absent)) return null;
        toldMissing.add(absent);
        return { diagnostics: { server: 'lsp', problems: [], more: 0 }, text: absent };
      }
      const shown = displayPath(deps.workspace, path);
      const work = inOrder(path, () => check(path, before, after, settings.warnings)).catch(() => null);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = Symbol('timed out');
      const bound = new Promise<typeof timedOut>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), settings.diagnosticsWaitMs);
        signal.addEventListener('abort', () => resolve(timedOut), { once: true });
      });
      const finding = await Promise.race([work, bound]);
      clearTimeout(timer);
      const notices = noticeText();
      if (finding === timedOut) {
        // The server was slow (a cold start): its answer reaches the model at a later step, if the file is still as written.
        void work.then(async (late) => {
          if (!late?.problems.length) return;
          const got = await deps.servers.clientFor(path);
          if (got.client?.textOf(path) !== after) return;
          deps.inject(
            `Late diagnostics for your earlier change to ${shown}. ${describeIntroduced(shown, late.server, late.problems, late.checkedBefore).text}`,
          );
        });
        return notices ? { diagnostics: { server: 'lsp', problems: [], more: 0 }, text: notices } : null;
      }
      if (!finding) return notices ? { diagnostics: { server: 'lsp', problems: [], more: 0 }, text: notices } : null;
      const described = describeIntroduced(shown, finding.server, finding.problems, finding.checkedBefore);
      return { diagnostics: described.diagnostics, text: [described.text, notices].filter(Boolean).join('\n') };
    },
  };
}
