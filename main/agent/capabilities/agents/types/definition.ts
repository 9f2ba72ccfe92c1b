import { yamlPackage } from '#infra/platform/on-demand';
import { parseSimpleFrontmatter } from '#infra/text/simple-frontmatter';
import type { AgentTypeSource, AgentTypeSummary } from '#protocol';
import { normaliseToolName } from './tool-names';

/** A sub-agent type: what the catalog lists and the runner needs. */
export interface AgentType extends AgentTypeSummary {
  /** Its role, the last section of its system prompt. */
  prompt: string;
}

/** A definition file that was used, with the parts of it that were ignored (and why). */
export interface ParsedDefinition {
  type: AgentType;
  ignored: string[];
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** Other agents' model aliases that name no model at any provider here. */
const MODEL_ALIASES = new Set(['inherit', 'sonnet', 'opus', 'haiku']);
/** Frontmatter keys that would widen what a sub-agent may do: never honoured. */
const PERMISSION_KEYS = ['permissionMode', 'permission-mode', 'permissions', 'allowedTools', 'allowed-tools', 'disallowedTools', 'mode', 'sandbox', 'yolo'];

/**
 * A sub-agent type from a Markdown file with YAML frontmatter (`name`, `description`, `tools` as a list or
 * comma-separated names, `model`), its body being the type's system prompt — the format other agents use
 * for theirs, so their files work unchanged. Throws with the reason when the file cannot be used.
 */
export function parseDefinition(text: string, file: string | undefined, source: AgentTypeSource): ParsedDefinition {
  const match = FENCE.exec(text.replace(/^\uFEFF/, ''));
  if (!match) throw new Error('it has no YAML frontmatter (a block between --- lines at the top)');
  let data: unknown;
  try {
    // The common one-line `key: value` header without the YAML parser (which would load with every run for the built-in types).
    data = parseSimpleFrontmatter(match[1] ?? '') ?? yamlPackage().parse(match[1] ?? '', { prettyErrors: false });
  } catch (error) {
    throw new Error(`the frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('the frontmatter must be "key: value" lines');
  const fields = data as Record<string, unknown>;
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  if (!NAME.test(name)) throw new Error(name ? `"${name}" is not a valid name (lower-case letters, digits, - and _)` : 'the frontmatter has no name');
  const description = typeof fields.description === 'string' ? fields.description.replace(/\s+/g, ' ').trim() : '';
  if (!description) throw new Error('the frontmatter has no description');
  const prompt = text
    .replace(/^\uFEFF/, '')
    .slice(match[0].length)
    .trim();
  if (!prompt) throw new Error('the file has no instructions after the frontmatter');

  const ignored: string[] = [];
  let tools: string[] = ['*'];
  if (fields.tools !== undefined && fields.tools !== null) {
    const raw = Array.isArray(fields.tools) ? fields.tools : typeof fields.tools === 'string' ? fields.tools.split(',') : null;
    if (!raw || raw.some((t) => typeof t !== 'string')) throw new Error('"tools" must be a list of tool names or a comma-separated string');
    tools = [];
    for (const entry of raw as string[]) {
      if (!entry.trim()) continue;
      const named = normaliseToolName(entry);
      if ('name' in named) {
        if (!tools.includes(named.name)) tools.push(named.name);
      } else ignored.push(`tool ${named.ignored}`);
    }
    if (!tools.length) throw new Error(`none of its tools can be given to a sub-agent${ignored.length ? ` (${ignored.join('; ')})` : ''}`);
  }
  let model: string | undefined;
  if (typeof fields.model === 'string' && fields.model.trim()) {
    const value = fields.model.trim();
    if (MODEL_ALIASES.has(value)) {
      if (value !== 'inherit') ignored.push(`model "${value}" (an alias of another agent; the session's model is used)`);
    } else model = value;
  }
  for (const key of PERMISSION_KEYS) {
    if (key in fields) ignored.push(`"${key}" (a definition can narrow the tools, never widen permissions: the session's mode and rules apply)`);
  }
  return {
    type: {
      name,
      description: description.slice(0, 1024),
      source,
      ...(file !== undefined ? { file } : {}),
      tools,
      ...(model ? { model } : {}),
      prompt: `## Your role: a sub-agent (${name})\n${prompt}`,
    },
    ignored,
  };
}
