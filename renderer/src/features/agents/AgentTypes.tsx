import { useEffect, useState } from 'react';
import type { AgentTypeSummary, SkippedAgentType } from '#protocol';
import { listAgentTypes, onAgentTypesChanged } from '../../actions/agents';
import { Spinner } from '../../components/Icon';
import './agents.css';

const SOURCE_WORDS: Record<AgentTypeSummary['source'], string> = { builtin: 'built-in', workspace: 'this workspace', user: 'yours' };

/** Settings: the sub-agent types the model may delegate to, and definition files that were skipped (with why). */
export function AgentTypes() {
  const [data, setData] = useState<{ types: AgentTypeSummary[]; skipped: SkippedAgentType[] } | null>(null);
  useEffect(() => {
    let live = true;
    const load = () => void listAgentTypes().then((result) => live && result && setData(result));
    load();
    // A definition saved while the page is open shows at once, as skills do.
    const unsubscribe = onAgentTypesChanged(load);
    return () => {
      live = false;
      unsubscribe();
    };
  }, []);
  return (
    <section className="agent-types" aria-label="Sub-agent types">
      {!data ? (
        <p role="status">
          <Spinner size={12} />
        </p>
      ) : (
        <>
          <ul className="agent-type-list">
            {data.types.map((type) => (
              <li key={type.name}>
                <span className="agent-type">{type.name}</span> <span className="agent-type-source">{SOURCE_WORDS[type.source]}</span>
                <p className="form-note">{type.description}</p>
                {type.tools.includes('*') && !type.model ? null : (
                  <p className="form-note agent-type-tools">
                    {type.tools.includes('*') ? 'Every tool a sub-agent may have' : `Tools: ${type.tools.join(', ')}`}
                    {type.model ? ` · model ${type.model}` : ''}
                  </p>
                )}
              </li>
            ))}
          </ul>
          <p className="form-note">
            Add your own as Markdown files in <code>.deft/agents/</code> or <code>.claude/agents/</code> (this workspace, once trusted) or{' '}
            <code>~/.deft/agents/</code>, <code>~/.claude/agents/</code>.
          </p>
          {data.skipped.length ? (
            <>
              <h4 className="agent-skipped-title">Files not used as they are</h4>
              <ul className="agent-skipped">
                {data.skipped.map((skip) => (
                  <li key={skip.file}>
                    <code>{skip.file}</code>: {skip.reason}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
