import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import type { FileMatch } from '#protocol';
import { Icon, Spinner } from '../../components/Icon';
import { searchFiles } from '../../actions/files';
import { type ActiveMention, activeMention } from './mentions';

const MENU_ID = 'mention-menu';
const LIMIT = 30;

interface Found {
  query: string;
  files: FileMatch[];
  indexing: boolean;
  indexed: number;
  failed: boolean;
}

/** A path with the matched characters marked; the folder part dimmed. */
function MatchedPath({ match }: { match: FileMatch }) {
  const slash = match.path.lastIndexOf('/', match.path.length - 2);
  const marked = new Set(match.positions);
  const part = (from: number, to: number) => {
    const out: ReactNode[] = [];
    for (let i = from; i < to; i++) {
      const c = match.path[i];
      out.push(marked.has(i) ? <mark key={i}>{c}</mark> : c);
    }
    return out;
  };
  return (
    <span className="mention-path">
      <span className="mention-name">{part(slash + 1, match.path.length)}</span>
      {slash >= 0 ? <span className="mention-dir">{part(0, slash + 1)}</span> : null}
    </span>
  );
}

export interface MentionMenu {
  menu: ReactNode;
  /** Handles the key when the menu is open; returns whether it did. */
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  open: boolean;
  inputProps: Record<string, string | undefined>;
}

/**
 * The @-mention picker: typing `@` lists workspace files (fuzzy, from the core's index, which honours
 * .gitignore and leaves secret files out). Arrow keys move, Enter or Tab inserts the path as a chip,
 * Escape closes. Each keystroke asks the core; answers to older keystrokes are dropped.
 */
export function useMentionMenu(text: string, caret: number, onPick: (active: ActiveMention, path: string) => void): MentionMenu {
  const active = activeMention(text, caret);
  const query = active?.query ?? null;
  const [found, setFound] = useState<Found | null>(null);
  const [index, setIndex] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const asked = useRef(0);
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (query === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = (first: boolean) => {
      const ticket = ++asked.current;
      void searchFiles(query, LIMIT).then((result) => {
        if (ticket !== asked.current) return;
        setFound({ query, files: result?.files ?? [], indexing: result?.indexing ?? false, indexed: result?.indexed ?? 0, failed: result === null });
        if (first) setIndex(0);
        // While the list is being refreshed, ask again so new files show up without another keystroke.
        if (result?.indexing) timer = setTimeout(() => ask(false), 400);
      });
    };
    ask(true);
    return () => clearTimeout(timer);
  }, [query]);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [index]);
  // Escape closes the picker for this @ only: the next @ opens it again.
  const hasMention = active !== null;
  useEffect(() => {
    if (!hasMention) setDismissedAt(null);
  }, [hasMention]);

  const open = active !== null && dismissedAt !== active.start;
  const files = open && found ? found.files : [];
  const current = Math.min(index, Math.max(0, files.length - 1));

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || !active) return false;
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissedAt(active.start);
      return true;
    }
    if (!files.length) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setIndex((current + (e.key === 'ArrowDown' ? 1 : -1) + files.length) % files.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) || e.key === 'Tab') {
      e.preventDefault();
      onPick(active, files[current]!.path);
      return true;
    }
    return false;
  };

  const status =
    !found || found.query !== query
      ? 'Searching…'
      : found.failed
        ? 'The file list is not available.'
        : !files.length
          ? found.indexing
            ? 'Listing the workspace…'
            : `No files match “${query}”.`
          : null;
  const menu =
    open && active ? (
      <div className="mention-popup">
        {files.length ? (
          <ul className="slash-menu mention-menu" role="listbox" id={MENU_ID} aria-label="Workspace files" ref={listRef}>
            {files.map((file, i) => (
              <li
                key={file.path}
                id={`${MENU_ID}-${i}`}
                role="option"
                aria-selected={i === current}
                className={`slash-item${i === current ? ' slash-item-active' : ''}`}
                onMouseDown={(e) => {
                  e.preventDefault();
                  onPick(active, file.path);
                }}
                onMouseMove={() => i !== current && setIndex(i)}
              >
                <Icon name={file.path.endsWith('/') ? 'folder' : 'file'} size={14} />
                <MatchedPath match={file} />
              </li>
            ))}
          </ul>
        ) : null}
        <div className="mention-status" role="status" aria-live="polite">
          {status ? (
            <>
              {found?.indexing || !found ? <Spinner size={10} /> : null} {status}
            </>
          ) : found?.indexing ? (
            'Refreshing the file list…'
          ) : (
            `${found?.indexed.toLocaleString('en-US')} files · ↑↓ to move · Enter or Tab to insert · Esc to close`
          )}
        </div>
      </div>
    ) : null;

  return {
    menu,
    onKeyDown,
    open,
    inputProps: {
      'aria-controls': open && files.length ? MENU_ID : undefined,
      'aria-activedescendant': open && files.length ? `${MENU_ID}-${current}` : undefined,
    },
  };
}
