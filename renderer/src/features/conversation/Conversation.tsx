import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { Icon } from '../../components/Icon';
import { requestsOf, useApprovals, waitingCount } from '../../stores/approvals';
import { useHistory } from '../../stores/history';
import { letGoOfEarlierTurns, useSessions } from '../../stores/sessions';
import { type TranscriptItem, useTranscript } from '../../stores/transcript';
import { useShownRows } from './shown-rows';
import { RewindNotice } from '../checkpoints/RewindNotice';
import { CompactionCard, UndoneLabel } from '../context/CompactionCard';
import { SteerMessage } from '../composer/SteerMessage';
import { ChangedFilesSummary } from '../files/ChangedFiles';
import { QuietHooksLine } from '../hooks/HookBadge';
import { SkillActivationCard } from '../skills/SkillActivationCard';
import { ToolCard } from '../tools/ToolCard';
import { ThinkingRow } from './ThinkingRow';
import { awaitingFirstTokens } from './awaiting';
import { EarlierPagesButton, useEarlierPages } from './EarlierPages';
import { EmptyState } from './EmptyState';
import { useFollowNewest } from './follow-newest';
import { isOwnPrompt, latestPromptIndex, withLatestTurn } from './latest-turn';
import { AssistantMessage, Notice, UserMessage } from './Messages';
import { forgetRowsGone } from './row-sizes';
import './conversation.css';

/**
 * One row of a transcript (the session's, or a sub-agent's in its card). `live`: the row is the open
 * session's, and an answer streaming in it follows its text from the store itself (see shown-rows.ts).
 */
export function TranscriptRow({ item, live = false }: { item: TranscriptItem; live?: boolean }) {
  switch (item.kind) {
    case 'user':
      return <UserMessage item={item} />;
    case 'assistant':
      return <AssistantMessage item={item} live={live} />;
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
    case 'steer':
      return <SteerMessage item={item} />;
    case 'hooks':
      return <QuietHooksLine item={item} />;
  }
}

/** The transcript, virtualised: only rows near the viewport are rendered. Sticks to the bottom while you are there. */
export function Conversation() {
  // The same rows while only a streaming answer's text grows: a delta renders that answer, not the list.
  const items = useShownRows();
  const loading = useSessions((s) => s.loading);
  const sessionId = useSessions((s) => s.currentId);
  if (!items.length) return loading ? <div className="conversation-scroll" role="log" aria-label="Conversation" aria-busy="true" /> : <EmptyState />;
  // Mounted once a session's rows are there, so the first rows it renders are the last ones.
  return <TranscriptList key={sessionId ?? ''} items={items} />;
}

function TranscriptList({ items }: { items: TranscriptItem[] }) {
  const undone = useHistory((s) => s.undone);
  const sessionId = useSessions((s) => s.currentId);
  // Waiting on the user (an approval, a question) is not waiting on the model.
  const asking = useApprovals((s) => waitingCount(requestsOf(s, sessionId)) > 0);
  const thinking = useTranscript((s) => awaitingFirstTokens(s.items, s.runningTurn)) && !asking;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { following, away, follow, onScroll, onContentResized } = useFollowNewest(scrollRef);
  const virtualizer = useVirtualizer({
    // Rows measured anew (an answer growing) move the rows after them and the list's height in the DOM
    // directly, in the ResizeObserver callback that measured them: no React render for it, and no second
    // frame of layout and paint after the one that showed the text. React renders when the rows shown change.
    directDomUpdates: true,
    directDomUpdatesMode: 'position',
    onChange: (instance) => onContentResized(instance.getTotalSize()),
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => estimateHeight(items[index]!),
    overscan: 6,
    getItemKey: (index) => items[index]!.id,
    rangeExtractor: useMemo(() => withLatestTurn(items), [items]),
    // A conversation opens at its end: without this the first render lays out (and highlights) the
    // opening rows only to jump away from them.
    initialOffset: Number.MAX_SAFE_INTEGER,
  });
  const earlier = useEarlierPages(scrollRef, items, virtualizer);
  // The initial offset (past the end) is clamped, and the virtualizer would keep retrying it — reading
  // the layout on every render. A scroll to the end is a command that settles once there.
  useEffect(() => virtualizer.scrollToEnd(), [virtualizer]);
  // Rows that change size above the fold move the scroll position to keep what is in view still. At the
  // bottom the pin below does that: a correction there would overshoot the end and be retried, reading
  // the layout on every render while an answer streams.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) => {
    if (following.current) return false;
    const offset = instance.scrollOffset ?? 0;
    return instance.itemSizeCache.has(item.key) ? item.end <= offset && instance.scrollDirection !== 'backward' : item.start < offset;
  };

  // A rewind is usually started from a prompt further up: its notice (with Undo rewind) is brought into view.
  const lastRewind = useRef(items.at(-1)?.kind === 'rewind' ? items.at(-1)!.id : null);
  // At once, in the commit that adds its row: followed from there as its row is measured.
  useLayoutEffect(() => {
    const last = items.at(-1);
    if (last?.kind === 'rewind' && last.id !== lastRewind.current) {
      lastRewind.current = last.id;
      follow();
    }
  }, [items, follow]);

  // The user's own prompt brings the view to the newest wherever they were reading, in the commit that adds it.
  const lastPrompt = useRef(items[latestPromptIndex(items)]?.id ?? null);
  useLayoutEffect(() => {
    const prompt = items[latestPromptIndex(items)];
    if (!prompt || prompt.id === lastPrompt.current) return;
    lastPrompt.current = prompt.id;
    if (isOwnPrompt(prompt)) follow();
  }, [items, follow]);

  // Following a long live session, its oldest rows leave the window (they page back in on scrolling up).
  useEffect(() => {
    if (following.current) letGoOfEarlierTurns();
  }, [items.length, following]);
  // Rows gone from the transcript: the virtualizer forgets their heights (it would keep one for every row ever shown).
  useEffect(() => {
    forgetRowsGone(virtualizer, items);
  }, [virtualizer, items]);

  return (
    <div className="conversation-frame">
      <div
        className="conversation-scroll"
        ref={scrollRef}
        role="log"
        aria-label="Conversation"
        aria-live="polite"
        onScroll={(e) => {
          onScroll(e.currentTarget);
          earlier.onScroll(e.currentTarget);
        }}
      >
        <div className="conversation-inner" ref={virtualizer.containerRef}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index]!;
            const isUndone = item.turnId !== undefined && undone[item.turnId] === true;
            return (
              <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className={isUndone ? 'row row-undone' : 'row'}>
                {isUndone && item.kind === 'user' ? <UndoneLabel /> : null}
                <TranscriptRow item={item} live />
                {thinking && row.index === items.length - 1 ? <ThinkingRow /> : null}
              </div>
            );
          })}
        </div>
      </div>
      <EarlierPagesButton {...earlier} />
      {away ? (
        <button type="button" className="jump-latest" onClick={follow}>
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
