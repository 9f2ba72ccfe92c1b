import { parse } from 'yaml';
import { SkillParseError } from './types';

export interface SplitFrontmatter {
  /** The parsed mapping, or null when the text has no `---` block. */
  data: Record<string, unknown> | null;
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m;

/**
 * Split `---` YAML frontmatter from the Markdown body. YAML is read leniently, as other agents write
 * it: a plain value holding `: ` (`description: Use when: the user asks`) is retried as a quoted string.
 */
export function splitFrontmatter(text: string): SplitFrontmatter {
  const source = text.replace(/^\uFEFF/, '');
  if (!/^---[ \t]*\r?\n/.test(source)) return { data: null, body: source };
  const match = FENCE.exec(source);
  if (!match || match.index !== 0) throw new SkillParseError('the frontmatter starts with --- but has no closing --- line');
  const yaml = match[1] ?? '';
  const body = source.slice(match[0].length);
  return { data: parseYamlMapping(yaml), body };
}

function parseYamlMapping(yaml: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parse(yaml, { uniqueKeys: false, prettyErrors: false });
  } catch (first) {
    const repaired = quoteColonValues(yaml);
    try {
      if (repaired === yaml) throw first;
      value = parse(repaired, { uniqueKeys: false, prettyErrors: false });
    } catch {
      throw new SkillParseError(`the frontmatter is not valid YAML: ${yamlMessage(first)}`);
    }
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new SkillParseError('the frontmatter must be a list of "key: value" lines');
  return value as Record<string, unknown>;
}

/** `key: some text: more` → `key: "some text: more"` for top-level plain scalars only. */
function quoteColonValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const m = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
      if (!m) return line;
      const value = m[2]!.trim();
      if (/^["'[{|>&*!#]/.test(value) || !/:\s/.test(value)) return line;
      return `${m[1]}: ${JSON.stringify(value)}`;
    })
    .join('\n');
}

function yamlMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}
