import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import './mcp.css';

type McpCall = Extract<ToolInputDisplay, { kind: 'mcp_call' }>;
type McpResult = Extract<ToolResultDisplay, { kind: 'mcp_result' }>;

/** An MCP tool call: its server and tool, and the arguments. */
export function McpCallView({ display }: { display: McpCall }) {
  return (
    <div className="mcp-call">
      <div className="mcp-call-head">
        MCP server <strong>{display.server}</strong> · tool <code>{display.tool}</code>
      </div>
      {display.arguments && display.arguments !== '{}' ? <pre className="tool-detail mcp-call-args">{display.arguments}</pre> : null}
    </div>
  );
}

/** What the server returned: text, images and resources. */
export function McpResultView({ display }: { display: McpResult }) {
  return (
    <div className="mcp-result">
      {display.text ? <pre className="tool-output">{display.text}</pre> : null}
      {display.images.length ? (
        <div className="mcp-result-images">
          {display.images.map((image, i) => (
            <img key={i} src={image.dataUrl} alt={`Image ${i + 1} from ${display.server} (${image.mimeType})`} />
          ))}
        </div>
      ) : null}
      {display.resources.length ? (
        <ul className="mcp-resources" aria-label="Resources">
          {display.resources.map((r) => (
            <li key={r.uri}>
              <code>{r.uri}</code>
              {r.name ? ` — ${r.name}` : ''}
              {r.mimeType ? ` (${r.mimeType})` : ''}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
