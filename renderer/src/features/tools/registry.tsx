import type { ComponentType, ReactNode } from 'react';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import type { IconName } from '../../components/Icon';
import type { ToolItem } from '../../stores/transcript';
import { Markdown } from '../conversation/Markdown';
import { fileInputRenderers, fileResultRenderers, fileSummary, openResults, supersedingResults } from '../files/cards';
import { McpCallView, McpResultView } from '../mcp/cards';
import { CodeProblems, CodeResultView, codeSummary } from '../code/cards';
import { AnswerPairs, legacyAnswers } from '../questions/AnswerPairs';
import { CommandCard } from '../tasks/CommandCard';
import { TodoItems } from '../todo/TodoItems';
import { SearchCard } from '../web/SearchCard';
import { UrlCard } from '../web/UrlCard';

type InputRenderer<K extends ToolInputDisplay['kind']> = (display: Extract<ToolInputDisplay, { kind: K }>) => ReactNode;
type ResultRenderer<K extends ToolResultDisplay['kind']> = (display: Extract<ToolResultDisplay, { kind: K }>, output: string) => ReactNode;

/**
 * One renderer per display kind. A new display kind is one entry here; kinds without an entry fall
 * back to the generic rendering in ToolCard. Renderers take the display object alone, so approval
 * prompts can reuse them.
 */
export const inputRenderers: { [K in ToolInputDisplay['kind']]?: InputRenderer<K> } = {
  command: (d) => <pre className="tool-command">$ {d.command}</pre>,
  generic: (d) => (d.detail ? <pre className="tool-detail">{d.detail}</pre> : null),
  // What an approval shows for the web: the URL to fetch, the query to send.
  url_fetch: (d) => <pre className="tool-detail">GET {d.url}</pre>,
  web_search: (d) => <pre className="tool-detail">{`${d.provider ?? 'Search'}: ${d.query}`}</pre>,
  // The user in control: todo lists, plans for review, goals to start.
  todo_list: (d) => <TodoItems items={d.items} />,
  plan_review: (d) => (
    <div className="plan-body">
      <Markdown text={d.plan} />
    </div>
  ),
  goal_start: (d) => (
    <div className="goal-start">
      <div>
        <strong>Objective:</strong> {d.objective}
      </div>
      {d.completionCriterion ? (
        <div>
          <strong>Done when:</strong> {d.completionCriterion}
        </div>
      ) : null}
    </div>
  ),
  mcp_call: (d) => <McpCallView display={d} />,
  ...fileInputRenderers,
};

export const resultRenderers: { [K in ToolResultDisplay['kind']]?: ResultRenderer<K> } = {
  error: (d) => <pre className="tool-output tool-output-error">{d.message}</pre>,
  text: (d) => <pre className="tool-output">{d.text}</pre>,
  todo_list: (d) => <TodoItems items={d.items} />,
  mcp_result: (d) => <McpResultView display={d} />,
  question_answers: (d) => <AnswerPairs answers={d.answers} dismissed={d.dismissed} />,
  structured: (d, output) => {
    const answers = legacyAnswers(d.data);
    return answers ? <AnswerPairs answers={answers} dismissed={false} /> : <pre className="tool-output">{output}</pre>;
  },
  ...fileResultRenderers,
  // A Write/Edit's diff, with what the language server says the change broke under it.
  diff: (d) => (
    <>
      {fileResultRenderers.diff(d)}
      {d.diagnostics ? <CodeProblems path={d.path} diagnostics={d.diagnostics} /> : null}
    </>
  ),
  code_result: (d) => <CodeResultView display={d} />,
};

/** Results that say all their call did (the call's own display is hidden once they arrive), beyond the file kinds. */
const superseding = new Set<ToolResultDisplay['kind']>(['question_answers']);

/** Display kinds whose whole card is their own component (live controls, custom layout). */
export const cardRenderers: { [K in ToolInputDisplay['kind']]?: ComponentType<{ item: ToolItem }> } = {
  command: CommandCard,
  // The web: a fetched page, and search results.
  url_fetch: UrlCard,
  web_search: SearchCard,
};

/** Add a whole-card component for a display kind (features whose cards render tool cards of their own register here). */
export function registerCard<K extends ToolInputDisplay['kind']>(kind: K, component: ComponentType<{ item: ToolItem }>): void {
  cardRenderers[kind] = component;
}

export const toolIcons: Record<string, IconName> = {
  command: 'terminal',
  file_io: 'file',
  diff: 'file',
  search: 'search',
  skill_call: 'spark',
  mcp_call: 'plug',
  url_fetch: 'globe',
  web_search: 'search',
};

export function renderInput(display: ToolInputDisplay): ReactNode {
  const render = inputRenderers[display.kind] as InputRenderer<typeof display.kind> | undefined;
  return render ? render(display) : null;
}

export function renderResult(display: ToolResultDisplay | undefined, output: string): ReactNode {
  if (display) {
    const render = resultRenderers[display.kind] as ResultRenderer<typeof display.kind> | undefined;
    if (render) return render(display, output);
  }
  return output ? <pre className="tool-output">{output}</pre> : null;
}

/** A short summary beside the card's title (line counts, match counts…), or null. */
export function renderSummary(display: ToolInputDisplay | ToolResultDisplay): ReactNode {
  if (display.kind === 'code_result') return codeSummary(display);
  return fileSummary(display);
}

/** Whether the result shows all the input did, so the input display is hidden once it arrives. */
export function resultSupersedesInput(display: ToolResultDisplay | undefined): boolean {
  return display !== undefined && (supersedingResults.has(display.kind) || superseding.has(display.kind));
}

/** Whether a card with this result starts open. */
export function opensByDefault(display: ToolResultDisplay | undefined): boolean {
  return display !== undefined && (openResults.has(display.kind) || display.kind === 'question_answers');
}
