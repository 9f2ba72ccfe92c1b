import './files.css';
import type { ReactNode } from 'react';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import { DiffStats, DiffView } from './DiffView';
import { countChanges, hunksOf } from '../../stores/changes';
import { FileContentView, FileIoView, FileListView, ImageView, SearchInputView, SearchResultsView } from './FileViews';

type In<K extends ToolInputDisplay['kind']> = Extract<ToolInputDisplay, { kind: K }>;
type Out<K extends ToolResultDisplay['kind']> = Extract<ToolResultDisplay, { kind: K }>;

/** Renderers for the file display kinds, plugged into the tool-card registry. */
export const fileInputRenderers = {
  file_io: (d: In<'file_io'>) => <FileIoView display={d} />,
  diff: (d: In<'diff'>) => <DiffView display={d} />,
  search: (d: In<'search'>) => <SearchInputView display={d} />,
};

export const fileResultRenderers = {
  // The card's title already says +N −M.
  diff: (d: Out<'diff'>) => <DiffView display={d} showStats={false} />,
  file_content: (d: Out<'file_content'>) => <FileContentView display={d} />,
  search_results: (d: Out<'search_results'>) => <SearchResultsView display={d} />,
  file_list: (d: Out<'file_list'>) => <FileListView display={d} />,
  image: (d: Out<'image'>) => <ImageView display={d} />,
};

/** Result kinds that show everything the input display did (the input is hidden once they arrive). */
export const supersedingResults = new Set<ToolResultDisplay['kind']>(['diff', 'file_content', 'search_results', 'file_list', 'image']);

/** Result kinds whose card starts open: changes and images are what people want to see. */
export const openResults = new Set<ToolResultDisplay['kind']>(['diff', 'image']);

const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString()} ${n === 1 ? word : many}`;

/** A short summary for the card header. */
export function fileSummary(display: ToolInputDisplay | ToolResultDisplay): ReactNode {
  switch (display.kind) {
    case 'diff': {
      const counts =
        display.added !== undefined && display.removed !== undefined ? { added: display.added, removed: display.removed } : countChanges(hunksOf(display));
      return <DiffStats {...counts} />;
    }
    case 'file_content': {
      if (!display.range) return 'empty';
      const of =
        display.totalLines !== undefined && display.totalLines !== display.range.end - display.range.start + 1
          ? ` of ${display.totalLines.toLocaleString()}`
          : '';
      return `L${display.range.start}–${display.range.end}${of}${display.truncated && !of ? ' · partial' : ''}`;
    }
    case 'search_results': {
      const files = new Set(display.matches.map((m) => m.file)).size;
      const lines = display.matches.some((m) => m.line !== undefined);
      return lines
        ? `${plural(display.total ?? display.matches.length, 'match', 'matches')} · ${plural(files, 'file')}`
        : plural(display.total ?? files, 'file');
    }
    case 'file_list':
      return plural(display.total ?? display.files.length, 'file');
    case 'image':
      return `${display.width}×${display.height}`;
    default:
      return null;
  }
}
