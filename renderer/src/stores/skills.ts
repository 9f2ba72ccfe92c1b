import { create } from 'zustand';
import type { SkillCatalog, SkillSummary } from '#protocol';
import { type Row, type RowHandlers, appendRow } from './rows';

/** What the skills UI shows: the gallery, the run dialog for one skill, or one SKILL.md. */
export type SkillView =
  | { kind: 'gallery' }
  | { kind: 'run'; skill: SkillSummary; fromGallery: boolean }
  | { kind: 'file'; skill: SkillSummary; path: string; text: string };

interface SkillsState {
  catalog: SkillCatalog | null;
  /** A failure to load the catalog (shown in the gallery). */
  error: string | null;
  view: SkillView | null;
  /** Gallery search and source filter survive closing and reopening. */
  query: string;
  source: SkillSummary['source'] | 'all';
  setCatalog(catalog: SkillCatalog): void;
  setError(error: string | null): void;
  show(view: SkillView | null): void;
  setQuery(query: string): void;
  setSource(source: SkillsState['source']): void;
}

/** The skill catalog and what the skills UI shows. */
export const useSkills = create<SkillsState>()((set) => ({
  catalog: null,
  error: null,
  view: null,
  query: '',
  source: 'all',
  setCatalog: (catalog) => set((s) => (s.catalog && s.catalog.version > catalog.version ? {} : { catalog, error: null })),
  setError: (error) => set({ error }),
  show: (view) => set({ view }),
  setQuery: (query) => set({ query }),
  setSource: (source) => set({ source }),
}));

/** A skill loaded into the conversation, as a transcript row. */
export interface SkillItem extends Row {
  kind: 'skill';
  name: string;
  args: string;
  trigger: 'user' | 'model' | 'nested';
  source: string;
  content: string;
}

export const skillRows: RowHandlers = {
  'skill.activated': (rows, event) => {
    const { turnId, name, args, trigger, source, content } = event;
    const item: SkillItem = { kind: 'skill', id: `skill${event.seq}`, ...(turnId ? { turnId } : {}), name, args, trigger, source, content };
    return appendRow<Row>(rows, item);
  },
};
