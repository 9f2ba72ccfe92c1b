import type { Environment } from '../main/agent/contract/environment';
import { localEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileTracker } from '../main/agent/capabilities/files/file-state';
import { type Tool, type ToolEnv, type ToolExecution, type ToolResult, ToolInputError, errorResult, isExecution } from '../main/agent/contract/tool';
import { editTool } from '../main/agent/capabilities/files/tools/edit/edit';
import { globTool } from '../main/agent/capabilities/files/tools/glob/glob';
import { grepTool } from '../main/agent/capabilities/files/tools/grep/grep';
import { readMediaFileTool } from '../main/agent/capabilities/files/tools/read-media-file/read-media-file';
import { readTool } from '../main/agent/capabilities/files/tools/read/read';
import { ToolRegistry } from '../main/agent/runtime/tools/registry';
import { validateArgs } from '../main/agent/runtime/tools/validate';
import { writeTool } from '../main/agent/capabilities/files/tools/write/write';
import { tempDir } from './harness';
import { inputSchemaOf } from '#contract/tool-input';

export interface Called {
  result: ToolResult;
  execution?: ToolExecution;
  /** The text the model reads (output, then the note). */
  text: string;
}

function modelText(result: ToolResult): string {
  const body = typeof result.output === 'string' ? result.output : result.output.map((p) => (p.type === 'text' ? p.text : `[${p.mimeType}]`)).join('\n');
  return result.note ? `${body}\n${result.note}` : body;
}

/**
 * The file tools on a temp workspace (and a temp folder outside it), called the way the loop calls
 * them: JSON Schema validation, zod parse, resolve, execute.
 */
export async function fileToolKit(options: { imageInput?: boolean; environment?: Environment } = {}) {
  const workspace = await tempDir('deft-files-ws-');
  const outside = await tempDir('deft-files-out-');
  const files = new FileTracker();
  const env: ToolEnv = {
    environment: options.environment ?? localEnvironment(),
    workspace,
    home: outside,
    sessionId: 'files-test',
    sessionDir: join(outside, 'session'),
    capabilities: { imageInput: options.imageInput ?? true },
    extraRoots: () => [],
  };
  const registry = new ToolRegistry([readTool(files), writeTool(files), editTool(files), grepTool(), globTool(), readMediaFileTool()] as Tool[]);

  async function call(name: string, args: Record<string, unknown>, signal = new AbortController().signal): Promise<Called> {
    const done = (result: ToolResult, execution?: ToolExecution): Called => ({ result, text: modelText(result), ...(execution ? { execution } : {}) });
    const registered = registry.get(name);
    if (!registered) throw new Error(`no tool ${name}`);
    const problems = validateArgs(registered.schema, args);
    if (problems.length) return done(errorResult(`Invalid arguments for ${name}: ${problems.join('; ')}.`));
    const parsed = inputSchemaOf(registered.tool.input).safeParse(args);
    if (!parsed.success) return done(errorResult(`Invalid arguments for ${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}.`));
    let resolved: ToolExecution | ToolResult;
    try {
      resolved = await registered.tool.resolveExecution(parsed.data, env);
    } catch (error) {
      if (error instanceof ToolInputError) return done(errorResult(error.message));
      throw error;
    }
    if (!isExecution(resolved)) return done(resolved);
    return done(await resolved.execute({ signal, onUpdate: () => {}, callId: 'c1', turnId: 't1', step: 1 }), resolved);
  }

  /** Write a file under the workspace (or any absolute path), creating folders. */
  async function put(path: string, content: string | Buffer): Promise<string> {
    const full = path.startsWith('/') ? path : join(workspace, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
    return full;
  }
  const get = (path: string) => readFile(path.startsWith('/') ? path : join(workspace, path), 'utf8');

  async function dispose() {
    await rm(workspace, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
  return { workspace, outside, files, env, registry, call, put, get, dispose };
}

export type FileToolKit = Awaited<ReturnType<typeof fileToolKit>>;
