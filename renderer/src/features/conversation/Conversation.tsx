import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Icon } from '../../components/Icon';
import { useHistory } from '../../stores/history';
import { letGoOfEarlierTurns, useSessions } from '../../stores/sessions';
import { type TranscriptItem, useTranscript } from '../../stores/transcript';
import { RewindNotice } from '../checkpoints/RewindNotice';
import { CompactionCard, UndoneLabel } from '../context/CompactionCard';
import { ChangedFilesSummary } from '../files/ChangedFiles';
import { SkillActivationCard } from '../skills/SkillActivationCard';
import { ToolCard } from '../tools/ToolCard';
import { EarlierPagesButton, useEarlierPages } from './EarlierPages';
import { EmptyState } from './EmptyState';
import { AssistantMessage, Notice, UserMessage } from './Messages';

/** One row of a transcript (the session's, or a sub-agent's in its card). */
export function TranscriptRow({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} />;
    case 'assistant':
      return <AssistantMessage item={item} />;
    case 'tool':
      return <ToolCard item={item} />;
    case 'notice':
      return <Notice item={item} />;
    case 'skill':
      return <SkillActivationCard item={item} />;
    case 'changes':
      return <ChangedFilesSummary item={item} />;
    case 'compaction':
      return <CompactionCard item={item} />;
    case 'rewind':
      return <RewindNotice item={item} />;
  }
}

/** The transcript, virtualised: only rows near the viewport are rendered. Sticks to the bottom while you are there. */
export function Conversation() {
  const items = useTranscript((s) => s.items);
  const loading = useSessions((s) => s.loading);
  const sessionId = useSessions((s) => s.currentId);
  if (!items.length) return loading ? <div className="conversation-scroll" role="log" aria-label="Conversation" aria-busy="true" /> : <EmptyState />;
  // Mounted once a session's rows are there, so the first rows it renders are the last ones.
  return <TranscriptList key={sessionId ?? ''} items={items} />;
}

function TranscriptList({ items }: { items: TranscriptItem[] }) {
  const undone = useHistory((s) => s.undone);
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [away, setAway] = useState(false);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => estimateHeight(items[index]!),
    overscan: 6,
    getItemKey: (index) => items[index]!.id,
    // A conversation opens at its end: without this the first render lays out (and highlights) the
    // opening rows only to jump away from them.
    initialOffset: Number.MAX_SAFE_INTEGER,
  });
  const totalSize = virtualizer.getTotalSize();
  const earlier = useEarlierPages(scrollRef, items, virtualizer);

  // A rewind is usually started from a prompt further up: its notice (with Undo rewind) is brought into view.
  const lastRewind = useRef(items.at(-1)?.kind === 'rewind' ? items.at(-1)!.id : null);
  useLayoutEffect(() => {
    const last = items.at(-1);
    if (last?.kind === 'rewind' && last.id !== lastRewind.current) {
      lastRewind.current = last.id;
      atBottom.current = true;
    }
    const el = scrollRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [items, totalSize]);

  // Following a long live session, its oldest rows leave the window (they page back in on scrolling up).
  useEffect(() => {
    if (atBottom.current) letGoOfEarlierTurns();
  }, [items.length]);

  const jump = () => {
    const el = scrollRef.current;
    if (!el) return;
    atBottom.current = true;
    setAway(false);
    el.scrollTop = el.scrollHeight;
    // Rows measured on the way down change the height: follow once more after they render.
    requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
  };

  return (
    <div className="conversation-frame">
    <div
      className="conversation-scroll"
      ref={scrollRef}
      role="log"
      aria-label="Conversation"
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        // The pill shows once the latest is well out of sight.
        setAway(el.scrollHeight - el.scrollTop - el.clientHeight > Math.max(200, el.clientHeight / 2));
        earlier.onScroll(el);
      }}
    >
      <div className="conversation-inner" style={{ height: totalSize }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index]!;
          const isUndone = item.turnId !== undefined && undone[item.turnId] === true;
          return (
            <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className={isUndone ? 'row row-undone' : 'row'} style={{ transform: `translateY(${row.start}px)` }}>
              {isUndone && item.kind === 'user' ? <UndoneLabel /> : null}
              <TranscriptRow item={item} />
            </div>
          );
        })}
      </div>
    </div>
      <EarlierPagesButton {...earlier} />
      {away ? (
        <button type="button" className="jump-latest" onClick={jump}>
          <Icon name="arrowDown" size={14} /> Jump to latest
        </button>
      ) : null}
    </div>
  );
}

/**
 * A first guess at a row's height before it is measured. Close guesses keep the scroll position and
 * the jump to the bottom stable when a long conversation opens; measurement corrects them.
 */
function estimateHeight(item: TranscriptItem): number {
  const lines = (text: string, perLine: number) => text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / perLine)), 0);
  switch (item.kind) {
    case 'user':
      return 46 + 24 * Math.min(lines(item.text, 70), 40);
    case 'assistant':
      return 24 + 25 * lines(item.text, 95) + (item.thinking ? 32 : 0);
    case 'tool':
      return 56;
    default:
      return 56;
  }
}
