import { memo, useLayoutEffect, useRef, useState } from 'react';
import type { SandboxBlock, ToolInputDisplay, ToolResultDisplay } from '#protocol';
import { formatDuration } from '#protocol/helpers/units';
import { ToolHeader } from '../tools/ToolHeader';
import { Icon, Spinner } from '../../components/Icon';
import type { ToolItem } from '../../stores/transcript';
import { HookBadge } from '../hooks/HookBadge';
import { stopOrBackgroundCommand } from '../../actions/tasks';
import { screenText } from './format';
import { OutputDialog } from './OutputDialog';
import { useTasks } from '../../stores/tasks';
import { useNow } from './use-now';
import { useFollowTail } from './use-follow-tail';
import './tasks.css';

type CommandDisplay = Extract<ToolInputDisplay, { kind: 'command' }>;
type CommandOutput = Extract<ToolResultDisplay, { kind: 'command_output' }>;

/** Output that follows its end while you are there, like a terminal. */
function LiveOutput({ text, label }: { text: string; label: string }) {
  const { ref, onScroll } = useFollowTail<HTMLPreElement>(text);
  return (
    <pre className="tool-output tool-live command-output" ref={ref} tabIndex={0} aria-label={label} onScroll={onScroll}>
      {text}
    </pre>
  );
}

function RunningControls({ item }: { item: ToolItem }) {
  const waiting = useTasks((s) => s.waiting[item.id]);
  const now = useNow(true);
  const [pending, setPending] = useState<'stop' | 'background' | null>(null);
  const act = (action: 'stop' | 'background') => {
    setPending(action);
    void stopOrBackgroundCommand(item.id, action).finally(() => setPending(null));
  };
  return (
    <div className="command-controls">
      {waiting ? (
        <span className="command-waiting" role="status">
          <Icon name="alert" size={13} /> Waiting — no output for {Math.max(1, Math.round((now - waiting.quietSince) / 1000))} s
        </span>
      ) : (
        <span className="command-running">
          <Spinner size={11} /> Running
        </span>
      )}
      {item.startedAt ? (
        <span className="command-elapsed" aria-label="Running for">
          {formatDuration(Math.max(0, now - item.startedAt)).replace(/\.\d s$/, ' s')}
        </span>
      ) : null}
      <span className="command-controls-gap" />
      <button
        type="button"
        className="button button-small"
        disabled={pending !== null}
        onClick={() => act('background')}
        title="Keep it running as a background task; the agent carries on"
      >
        Move to background
      </button>
      <button type="button" className="button button-small button-stop" disabled={pending !== null} onClick={() => act('stop')} aria-label="Stop command">
        <Icon name="stop" size={12} /> {pending === 'stop' ? 'Stopping…' : 'Stop'}
      </button>
    </div>
  );
}

/** Whether line `index` was written to stderr. */
const onStderr = (ranges: CommandOutput['stderrLines'], index: number) => ranges?.some(([from, to]) => index >= from && index < to) ?? false;

/**
 * A finished command's output. Stdout keeps the normal colour and only stderr lines are tinted; a
 * command that failed opens at the end of its output, where the failing lines are.
 */
function CommandOutputView({ shown, failed }: { shown: CommandOutput; failed: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && failed) el.scrollTop = el.scrollHeight;
  }, [failed]);
  const lines = screenText(shown.output).split('\n');
  return (
    <pre ref={ref} className="tool-output command-output" tabIndex={0} aria-label={failed ? 'Output (failed)' : 'Output'}>
      {lines.map((line, i) => (
        <span key={i} className={onStderr(shown.stderrLines, i) ? 'stderr-line' : undefined}>
          {line}
          {i < lines.length - 1 ? '\n' : ''}
        </span>
      ))}
    </pre>
  );
}

/** Copy output and Open full log, on every finished command. */
function OutputActions({ text, logId, title }: { text: string; logId: string | undefined; title: string }) {
  const [copied, setCopied] = useState(false);
  const [viewing, setViewing] = useState(false);
  return (
    <div className="command-actions">
      <button
        type="button"
        className="button button-small"
        onClick={() =>
          void navigator.clipboard?.writeText(text).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          })
        }
      >
        <Icon name="copy" size={13} /> {copied ? 'Copied' : 'Copy output'}
      </button>
      {logId ? (
        <button type="button" className="button button-small" onClick={() => setViewing(true)}>
          <Icon name="log" size={13} /> Open full log
        </button>
      ) : null}
      {copied ? (
        <span className="visually-hidden" role="status">
          Output copied
        </span>
      ) : null}
      {viewing && logId ? <OutputDialog taskId={logId} title={title} onClose={() => setViewing(false)} /> : null}
    </div>
  );
}

function Result({ item, display }: { item: ToolItem; display: CommandDisplay }) {
  const result = item.result!;
  const shown = result.display;
  if (shown?.kind === 'task') {
    return (
      <div className="command-moved" role="status">
        <Icon name="terminal" size={13} />
        <span>
          {display.background ? 'Started in the background' : 'Moved to the background'} as <span className="task-id">{shown.taskId}</span>
        </span>
        <button type="button" className="button button-small" onClick={() => useTasks.getState().setPanelOpen(true)}>
          Show in tasks panel
        </button>
      </div>
    );
  }
  const title = `Output of ${display.description ?? item.description}`;
  if (shown?.kind === 'command_output') {
    const failed = shown.exitCode !== 0;
    return (
      <>
        {shown.output ? <CommandOutputView shown={shown} failed={failed} /> : <div className="command-empty">No output.</div>}
        {shown.blocked?.length ? <BlockedBySandbox blocked={shown.blocked} /> : null}
        <OutputActions text={screenText(shown.output)} logId={shown.logId} title={title} />
      </>
    );
  }
  return result.output ? (
    <>
      <pre className={`tool-output${result.isError ? ' tool-output-error' : ''}`}>{result.output}</pre>
      <OutputActions text={result.output} logId={undefined} title={title} />
    </>
  ) : null;
}

const BLOCKED_KIND: Record<SandboxBlock['kind'], string> = { write: 'Write', read: 'Read', network: 'Connection' };

/** What the OS sandbox refused the command, and how to allow each. */
function BlockedBySandbox({ blocked }: { blocked: SandboxBlock[] }) {
  return (
    <div className="command-blocked" role="note" aria-label="Blocked by the sandbox">
      <strong>
        <Icon name="shield" size={13} /> Blocked by the sandbox
      </strong>
      <ul>
        {blocked.map((b) => (
          <li key={`${b.kind}:${b.target}`}>
            <span className="command-blocked-kind">{BLOCKED_KIND[b.kind]}</span> <code>{b.target}</code>
            <span className="command-blocked-hint">{b.hint}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** How the command ended, when a chip says it better than a mark: its exit code, or where it went. */
function outcomeChip(item: ToolItem, display: CommandDisplay) {
  const shown = item.result?.display;
  if (item.status === 'running') return undefined;
  if (shown?.kind === 'task') return <span className="command-chip chip-bg">{display.background ? 'background' : 'moved to background'}</span>;
  if (shown?.kind === 'command_output') {
    const code = shown.exitCode;
    return <span className={`command-chip ${code === 0 ? 'chip-ok' : 'chip-bad'}`}>{code === null ? 'stopped' : `exit ${code}`}</span>;
  }
  return undefined;
}

/** The header shows the command's first line; the body repeats it whole only when that line is not all of it. */
const firstLine = (command: string) => command.split('\n')[0] ?? '';
const showsWhole = (command: string) => !command.includes('\n') && command.length <= 120;

/** A shell command: what runs where, its live output, Stop while it runs, and how it ended. */
export const CommandCard = memo(function CommandCard({ item }: { item: ToolItem }) {
  const display = item.display as CommandDisplay;
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? item.status === 'error';
  const running = item.status === 'running';
  return (
    <section className={`tool-card command-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <ToolHeader
        item={item}
        icon="terminal"
        tool={item.name}
        subject={<span className="tool-command-text">{firstLine(display.command)}</span>}
        subjectText={firstLine(display.command)}
        subtitle={display.description === display.command ? undefined : display.description}
        meta={
          display.sandboxed ? (
            <span
              className="command-sandboxed"
              title="Runs in the OS sandbox: it writes only in the workspace and its temp folder, and reaches only allowed hosts"
            >
              <Icon name="shield" size={11} /> sandboxed
            </span>
          ) : null
        }
        outcome={outcomeChip(item, display)}
        expanded={expanded || running}
        onToggle={() => setOpen(!expanded)}
      />
      {expanded || running ? (
        <div className="tool-body">
          <div className="command-line">
            {showsWhole(display.command) ? null : <pre className="tool-command">$ {display.command}</pre>}
            {display.cwd ? (
              <span className="command-cwd" title="Working directory">
                {display.cwd === '.' ? 'in the workspace' : `in ${display.cwd}`}
              </span>
            ) : null}
          </div>
          {running ? (
            <>
              {item.progress ? <LiveOutput text={screenText(item.progress)} label="Live output" /> : null}
              {display.background ? null : <RunningControls item={item} />}
            </>
          ) : (
            <Result item={item} display={display} />
          )}
        </div>
      ) : null}
      <HookBadge hooks={item.hooks} />
    </section>
  );
});
