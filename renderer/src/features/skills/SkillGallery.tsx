import { useEffect, useMemo, useRef } from 'react';
import type { SkillSummary } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { Icon } from '../../components/Icon';
import { refreshSkills } from '../../actions/skills';
import { SOURCE_LABELS } from './SkillBadges';
import { SkillCard } from './SkillCard';
import { useSkills } from '../../stores/skills';
import './skills.css';

const SOURCES: Array<SkillSummary['source']> = ['explicit', 'workspace', 'user', 'extra', 'plugin', 'builtin'];

function matches(skill: SkillSummary, query: string): boolean {
  if (!query) return true;
  const q = query.toLowerCase();
  return skill.name.includes(q) || skill.description.toLowerCase().includes(q) || (skill.whenToUse?.toLowerCase().includes(q) ?? false);
}

/** Every skill as a card, with search, a source filter, the skipped files and why, and the folders scanned. */
export function SkillGallery({ onClose }: { onClose: () => void }) {
  const catalog = useSkills((s) => s.catalog);
  const error = useSkills((s) => s.error);
  const query = useSkills((s) => s.query);
  const source = useSkills((s) => s.source);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void refreshSkills();
    // The dialog focuses its first control (Close) when it opens; the search box is more useful. The last
    // search is kept but selected, so typing starts a new one.
    const timer = setTimeout(() => {
      search.current?.focus();
      search.current?.select();
    }, 0);
    return () => clearTimeout(timer);
  }, []);

  const skills = useMemo(() => catalog?.skills ?? [], [catalog]);
  const counts = useMemo(() => {
    const map = new Map<SkillSummary['source'], number>();
    for (const s of skills) map.set(s.source, (map.get(s.source) ?? 0) + 1);
    return map;
  }, [skills]);
  const shown = useMemo(() => skills.filter((s) => (source === 'all' || s.source === source) && matches(s, query.trim())), [skills, source, query]);
  const skipped = catalog?.skipped ?? [];

  return (
    <Dialog title="Skills" onClose={onClose} wide>
      <div className="skill-toolbar">
        <label className="skill-search">
          <Icon name="search" size={14} />
          <input
            ref={search}
            type="search"
            aria-label="Search skills"
            placeholder="Search by name or description"
            value={query}
            onChange={(e) => useSkills.getState().setQuery(e.target.value)}
          />
        </label>
        <div className="skill-filters" role="group" aria-label="Filter by source">
          <button type="button" className="chip" aria-pressed={source === 'all'} onClick={() => useSkills.getState().setSource('all')}>
            All <span className="chip-count">{skills.length}</span>
          </button>
          {SOURCES.filter((s) => counts.get(s)).map((s) => (
            <button key={s} type="button" className="chip" aria-pressed={source === s} onClick={() => useSkills.getState().setSource(s)}>
              {SOURCE_LABELS[s]} <span className="chip-count">{counts.get(s)}</span>
            </button>
          ))}
        </div>
        <button type="button" className="button button-small button-ghost" onClick={() => void refreshSkills(true)} title="Read every skill folder again">
          Rescan
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {!catalog && !error ? <p className="skill-empty">Loading skills…</p> : null}
      {catalog && !shown.length ? (
        <p className="skill-empty">
          {skills.length
            ? 'No skill matches this search.'
            : 'No skills yet. Add a folder with a SKILL.md under .deft/skills/ in the workspace, or run /skill-creator.'}
        </p>
      ) : null}
      <div className="skill-grid">
        {shown.map((skill) => (
          <SkillCard key={skill.name} skill={skill} />
        ))}
      </div>
      {skipped.length ? (
        <section className="skill-skipped" aria-label="Skipped skills">
          <h3 className="section-title">
            <Icon name="alert" size={13} /> Skipped ({skipped.length})
          </h3>
          <ul>
            {skipped.map((s) => (
              <li key={`${s.file}:${s.reason}`}>
                <code className="skill-file">{s.file}</code>
                <span className="skill-reason">{s.reason}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {catalog ? (
        <details className="skill-roots">
          <summary>Folders scanned ({catalog.roots.length})</summary>
          <ul>
            {catalog.roots.map((r) => (
              <li key={r.path}>
                <code>{r.path}</code>{' '}
                <span className="skill-root-meta">
                  {SOURCE_LABELS[r.source]}
                  {r.exists ? '' : ' · not created yet'}
                  {r.watched ? ' · watched' : ''}
                </span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </Dialog>
  );
}
