import type { PluginContents as Contents } from '#protocol';

/** What a plugin brings, part by part; hooks and MCP servers are marked as running code. */
export function PluginContents({ contents }: { contents: Contents }) {
  const rows: Array<{ label: string; items: string[]; runsCode?: boolean }> = [
    { label: 'Skills', items: contents.skills },
    { label: 'Commands', items: contents.commands.map((c) => `/${c}`) },
    { label: 'Sub-agent types', items: contents.agents },
    { label: 'Hooks', items: contents.hooks.map((h) => `${h.event}: ${h.command}`), runsCode: true },
    { label: 'MCP servers', items: contents.mcpServers.map((s) => `${s.name}: ${s.command}`), runsCode: true },
  ].filter((row) => row.items.length);
  return (
    <dl className="plugin-contents">
      {rows.length ? null : <dd className="form-note">Nothing Deft uses.</dd>}
      {rows.map((row) => (
        <div key={row.label} className="plugin-part">
          <dt>
            {row.label}
            {row.runsCode ? <span className="plugin-runs-code">runs code</span> : null}
          </dt>
          <dd>
            {row.items.map((item) => (
              <code key={item}>{item}</code>
            ))}
          </dd>
        </div>
      ))}
      {contents.problems.map((problem) => (
        <dd key={problem} className="form-error">
          {problem}
        </dd>
      ))}
    </dl>
  );
}
