import { yamlPackage } from '#infra/platform/on-demand';
import { SkillParseError } from './types';
import { parseSimpleFrontmatter } from '#infra/text/simple-frontmatter';

export { parseSimpleFrontmatter };

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
  return parseSimpleFrontmatter(yaml) ?? parseYamlLenient(yaml);
}

/** The YAML parser, retried with colon-holding values quoted when the first attempt fails. */
export function parseYamlLenient(yaml: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = yamlPackage().parse(yaml, { uniqueKeys: false, prettyErrors: false });
  } catch (first) {
    const repaired = quoteColonValues(yaml);
    try {
      if (repaired === yaml) throw first;
      value = yamlPackage().parse(repaired, { uniqueKeys: false, prettyErrors: false });
    } catch {
      throw new SkillParseError(`the frontmatter is not valid YAML: ${yamlMessage(first)}`);
    }
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new SkillParseError('the frontmatter must be a list of "key: value" lines');
  return value as Record<string, unknown>;
}

/** `key: some text: more` → `key: "some text: more"` (and `key: [a] [b]` → `key: "[a] [b]"`) for top-level plain scalars only. */
function quoteColonValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const m = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
      if (!m) return line;
      const value = m[2]!.trim();
      // Claude Code's `argument-hint: [pr-number] [priority]`: brackets followed by more text are not a YAML list.
      if (/^\[[^\]]*\][ \t]+[^\s#]/.test(value)) return `${m[1]}: ${JSON.stringify(value)}`;
      if (/^["'[{|>&*!#]/.test(value) || !/:\s/.test(value)) return line;
      return `${m[1]}: ${JSON.stringify(value)}`;
    })
    .join('\n');
}

function yamlMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}
