import type { ToolEnv, ToolResult, ToolRunContext } from '#contract/tool';

/** Files larger than this are not checked by a language server after a write. */
const MAX_CHECKED_BYTES = 2 * 1024 * 1024;

/**
 * After a Write or Edit: what the language server says the change broke (ToolEnv.codeChecks), added to the result —
 * a few lines for the model, the problems on the diff card. `before` is the file's text as it was on disk (null: it
 * was created). The result is returned as is when no server checked the file in time.
 */
export async function withCodeCheck(env: ToolEnv, ctx: ToolRunContext, path: string, before: string | null, result: ToolResult): Promise<ToolResult> {
  if (!env.codeChecks || result.isError) return result;
  try {
    const after = await env.environment.readText(path);
    if (after.length > MAX_CHECKED_BYTES || (before?.length ?? 0) > MAX_CHECKED_BYTES) return result;
    const check = await env.codeChecks.afterWrite(path, before, after, ctx.signal);
    if (!check) return result;
    const output = check.text && typeof result.output === 'string' ? `${result.output}\n\n${check.text}` : result.output;
    const display =
      result.display?.kind === 'diff' && (check.diagnostics.problems.length || check.diagnostics.server !== 'lsp')
        ? { ...result.display, diagnostics: check.diagnostics }
        : result.display;
    return { ...result, output, ...(display ? { display } : {}) };
  } catch {
    return result;
  }
}
