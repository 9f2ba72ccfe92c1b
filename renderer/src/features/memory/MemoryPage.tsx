import { useEffect } from 'react';
import type { InstructionFileInfo } from '#protocol';
import { formatBytes } from '#protocol/helpers/units';
import { loadMemory, setInstructionSettings } from '../../actions/memory';
import { useMemory } from '../../stores/memory';
import './memory.css';

const SCOPE_TEXT: Record<InstructionFileInfo['scope'], string> = { user: 'Yours', project: 'Project', nested: 'Subfolder' };

/**
 * Settings → Memory (`/memory`): the instruction files the model reads, in the order it reads them, with what each
 * holds, what was not read and why, and whether Claude Code's and Codex's user files count too.
 */
export function MemoryPage() {
  const overview = useMemory((s) => s.overview);
  useEffect(() => void loadMemory(), []);
  if (!overview) return <p className="form-note">Loading…</p>;
  return (
    <section aria-label="Memory" className="memory-page">
      <p className="form-note">
        The model reads these files at the start of a conversation (a subfolder’s when it first works there). Start a message with <code>#</code> to add a line
        to one.
      </p>
      {!overview.files.length ? (
        <p className="empty-note">
          No instruction files are in effect. Add an AGENTS.md (or CLAUDE.md) to the project, or ~/.deft/AGENTS.md for every project.
        </p>
      ) : null}
      <ol className="card-list memory-files" aria-label="Instruction files in effect">
        {overview.files.map((file) => (
          <li key={`${file.scope}:${file.display}`} className="memory-file">
            <details>
              <summary>
                <span className="memory-path">{file.display}</span>
                <span className="mcp-badge">{SCOPE_TEXT[file.scope]}</span>
                {file.importedBy ? <span className="file-meta">imported by {file.importedBy}</span> : null}
                <span className="file-meta">{formatBytes(file.bytes)}</span>
                {file.truncated ? <span className="memory-cut">cut</span> : null}
              </summary>
              <pre className="memory-text">{file.text}</pre>
            </details>
          </li>
        ))}
      </ol>
      {overview.problems.length ? (
        <>
          <h3 className="memory-heading">Not read</h3>
          <ul className="memory-problems" aria-label="Instruction files not read">
            {overview.problems.map((p) => (
              <li key={`${p.display}:${p.message}`}>
                <code>{p.display}</code>: {p.message}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3 className="memory-heading">Other agents’ files</h3>
      <label className="memory-toggle">
        <input type="checkbox" checked={overview.settings.claudeUser} onChange={(e) => void setInstructionSettings({ claudeUser: e.target.checked })} />
        <span>
          Read <code>~/.claude/CLAUDE.md</code> (Claude Code’s user file) too
        </span>
      </label>
      <label className="memory-toggle">
        <input type="checkbox" checked={overview.settings.codexUser} onChange={(e) => void setInstructionSettings({ codexUser: e.target.checked })} />
        <span>
          Read <code>~/.codex/AGENTS.md</code> (Codex’s user file) too
        </span>
      </label>
      <p className="form-note">A change applies to new conversations (and after a compaction).</p>
    </section>
  );
}
