import { z } from 'zod';
import { codeSchemas } from './code';
import { mcpSchemas } from './mcp';
import { sandboxSchemas } from './sandbox';
import { webSchemas } from './web';
import { builtOnce } from '../helpers/built-once';

/** One diff hunk, in unified-diff terms (1-based line numbers); built on first use, with the schemas that carry it. */
export const diffHunkSchema = builtOnce(() =>
  z.object({
    oldStart: z.number().int(),
    oldLines: z.number().int(),
    newStart: z.number().int(),
    newLines: z.number().int(),
    lines: z.array(z.string()),
  }),
);
export type DiffHunk = z.infer<ReturnType<typeof diffHunkSchema>>;

/**
 * A change to one file; `hunks` carry it (3 lines of context). `before`/`after`, the whole texts, are only in
 * events written before tool events were slimmed (empty there with `omitted` when too large); tools now send
 * the hunks alone, so a log keeps a file's text once instead of four times.
 */
const diffFields = () => ({
  path: z.string(),
  before: z.string().optional(),
  after: z.string().optional(),
  hunks: z.array(diffHunkSchema()).optional(),
  // files: counts for the whole change, and whether the texts or hunks were cut to fit.
  added: z.number().int().optional(),
  removed: z.number().int().optional(),
  omitted: z.boolean().optional(),
  truncated: z.boolean().optional(),
});

/**
 * What a tool call is about to do, shown on its card and in approval requests. Built with the event schemas
 * that carry it, on first use (toolInputDisplaySchema), like ToolResultDisplay.
 */
const buildToolInputDisplay = () => {
  const { McpCallDisplay } = mcpSchemas();
  return z.discriminatedUnion('kind', [
    McpCallDisplay,
    z.object({
      kind: z.literal('command'),
      command: z.string(),
      cwd: z.string().optional(),
      description: z.string().optional(),
      background: z.boolean().optional(),
      /** It runs in the OS sandbox (writes limited to the workspace, network to allowed domains). */
      sandboxed: z.boolean().optional(),
    }),
    /** A sandboxed command wants to reach a host that is not allowed yet. */
    z.object({ kind: z.literal('network'), host: z.string(), port: z.number().int(), command: z.string().optional() }),
    z.object({
      kind: z.literal('file_io'),
      operation: z.enum(['read', 'write', 'edit', 'glob', 'grep', 'media']),
      path: z.string(),
      detail: z.string().optional(),
      content: z.string().optional(),
    }),
    z.object({ kind: z.literal('diff'), ...diffFields() }),
    z.object({ kind: z.literal('search'), query: z.string(), scope: z.string().optional() }),
    z.object({ kind: z.literal('url_fetch'), url: z.string(), method: z.string().optional() }),
    /** A web search: the query and the provider it goes to. */
    z.object({ kind: z.literal('web_search'), query: z.string(), provider: z.string().optional() }),
    z.object({ kind: z.literal('agent_call'), agentName: z.string(), prompt: z.string(), background: z.boolean().optional() }),
    z.object({
      kind: z.literal('agent_swarm'),
      agentName: z.string(),
      description: z.string(),
      items: z.array(z.string()),
      resumes: z.number().int().optional(),
    }),
    z.object({ kind: z.literal('skill_call'), skillName: z.string(), args: z.string().optional() }),
    z.object({ kind: z.literal('todo_list'), items: z.array(z.object({ title: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })) }),
    z.object({ kind: z.literal('task'), taskId: z.string(), status: z.string(), description: z.string(), taskKind: z.string().optional() }),
    z.object({ kind: z.literal('task_stop'), taskId: z.string(), taskDescription: z.string() }),
    z.object({
      kind: z.literal('plan_review'),
      plan: z.string(),
      path: z.string().optional(),
      options: z.array(z.object({ label: z.string(), description: z.string() })).optional(),
    }),
    z.object({ kind: z.literal('goal_start'), objective: z.string(), completionCriterion: z.string().optional() }),
    z.object({ kind: z.literal('generic'), summary: z.string(), detail: z.string().optional() }),
  ]);
};
export type ToolInputDisplay = z.infer<ReturnType<typeof buildToolInputDisplay>>;
export const toolInputDisplaySchema: () => ReturnType<typeof buildToolInputDisplay> = builtOnce(buildToolInputDisplay);

/** What a finished tool call produced, for its card (the model gets its own text). Built on first use (toolResultDisplaySchema). */
const buildToolResultDisplay = () => {
  const { WebSearchResult } = webSchemas();
  const { CodeDiagnostics, CodeResultDisplay } = codeSchemas();
  const { McpResultDisplay } = mcpSchemas();
  const { SandboxBlock } = sandboxSchemas();
  return z.discriminatedUnion('kind', [
    McpResultDisplay,
    z.object({
      kind: z.literal('command_output'),
      exitCode: z.number().int().nullable(),
      output: z.string(),
      truncated: z.boolean().optional(),
      /** What the OS sandbox refused while it ran, and how to allow it. */
      blocked: z.array(SandboxBlock).optional(),
      /** Lines [from, to) of `output` the command wrote to stderr (0-based). */
      stderrLines: z
        .array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]))
        .max(1000)
        .optional(),
      /** The command's id, whose full log readTaskOutput reads. */
      logId: z.string().optional(),
    }),
    z.object({
      kind: z.literal('file_content'),
      path: z.string(),
      /** The text read. Absent when the result's `output` is exactly this text with each line numbered (see fileTextOf). */
      content: z.string().optional(),
      range: z.object({ start: z.number().int(), end: z.number().int() }).optional(),
      totalLines: z.number().int().optional(),
      truncated: z.boolean().optional(),
    }),
    z.object({
      kind: z.literal('diff'),
      ...diffFields(),
      /** What the language server found wrong that this change introduced. */ diagnostics: CodeDiagnostics.optional(),
    }),
    CodeResultDisplay,
    z.object({
      kind: z.literal('search_results'),
      query: z.string(),
      matches: z.array(z.object({ file: z.string(), line: z.number().int().optional(), text: z.string().optional() })),
      total: z.number().int().optional(),
    }),
    z.object({ kind: z.literal('file_list'), files: z.array(z.string()), total: z.number().int().optional() }),
    z.object({
      kind: z.literal('image'),
      path: z.string(),
      mimeType: z.string(),
      dataUrl: z.string(),
      width: z.number().int(),
      height: z.number().int(),
      caption: z.string().optional(),
    }),
    /** A fetched page: the final URL after redirects, its title, size in bytes, whether main text was extracted, and the start of its Markdown. */
    z.object({
      kind: z.literal('url_content'),
      url: z.string(),
      status: z.number().int(),
      preview: z.string().optional(),
      contentType: z.string().optional(),
      title: z.string().optional(),
      bytes: z.number().int().optional(),
      extracted: z.boolean().optional(),
      /** The preview was cut to fit the card. */
      previewTruncated: z.boolean().optional(),
    }),
    /** Web search results, in the provider's order. */
    z.object({
      kind: z.literal('web_results'),
      query: z.string(),
      provider: z.string(),
      results: z.array(WebSearchResult),
    }),
    z.object({ kind: z.literal('agent_summary'), agentName: z.string(), result: z.string().optional(), steps: z.number().int().optional() }),
    z.object({ kind: z.literal('task'), taskId: z.string(), status: z.string(), description: z.string() }),
    z.object({ kind: z.literal('todo_list'), items: z.array(z.object({ title: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })) }),
    z.object({ kind: z.literal('structured'), data: z.unknown() }),
    /** The user's answers to AskUserQuestion, question by question (empty when they dismissed the questions). */
    z.object({ kind: z.literal('question_answers'), answers: z.array(z.object({ question: z.string(), answer: z.string() })), dismissed: z.boolean() }),
    z.object({ kind: z.literal('text'), text: z.string(), truncated: z.boolean().optional() }),
    z.object({ kind: z.literal('error'), message: z.string(), code: z.string().optional() }),
    z.object({ kind: z.literal('generic'), summary: z.string(), detail: z.string().optional() }),
  ]);
};
export type ToolResultDisplay = z.infer<ReturnType<typeof buildToolResultDisplay>>;
export const toolResultDisplaySchema: () => ReturnType<typeof buildToolResultDisplay> = builtOnce(buildToolResultDisplay);
