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
  return parseSimpleFrontmatter(yaml) ?? parseYamlLenient(yaml);
}

/** The YAML parser, retried with colon-holding values quoted when the first attempt fails. */
export function parseYamlLenient(yaml: string): Record<string, unknown> {
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

const PLAIN_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
const NOT_A_STRING = [
  /^(?:null|Null|NULL|~|true|True|TRUE|false|False|FALSE)$/,
  /^[-+]?[0-9]+$/,
  /^0o[0-7]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?\.(?:inf|Inf|INF)$/,
  /^\.(?:nan|NaN|NAN)$/,
];

function simpleScalar(value: string): string | boolean | null {
  if (/^(?:true|True|TRUE)$/.test(value)) return true;
  if (/^(?:false|False|FALSE)$/.test(value)) return false;
  if (value.startsWith('"')) return value.length >= 2 && value.endsWith('"') && !/["\\]/.test(value.slice(1, -1)) ? value.slice(1, -1) : null;
  if (value.startsWith("'")) return value.length >= 2 && value.endsWith("'") && !value.slice(1, -1).includes("'") ? value.slice(1, -1) : null;
  // A plain value holding ": " is not valid YAML; the lenient reading (quoting it) gives the text as written.
  if (PLAIN_START.test(value) || value.endsWith(':') || value.includes(' #') || /:\t/.test(value) || NOT_A_STRING.some((r) => r.test(value))) return null;
  return value;
}

/**
 * The common case — one `key: text` per line, quoted text, `[a, b]` lists of words — read without the
 * YAML parser, which costs most of a cold scan of many skills. Anything else returns null and goes to
 * the YAML parser; where this reader answers, the answer equals the lenient parser's (frontmatter.test.ts checks).
 */
export function parseSimpleFrontmatter(yaml: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const raw of yaml.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.trim() || line.startsWith('#')) continue;
    if (line.includes('\t')) return null;
    const m = /^([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S.*)$/.exec(line);
    if (!m) return null;
    const key = m[1]!;
    const value = m[2]!.trimEnd();
    if (Object.hasOwn(out, key)) return null;
    if (value.startsWith('[')) {
      if (!value.endsWith(']')) return null;
      const inner = value.slice(1, -1).trim();
      const items = inner ? inner.split(',').map((i) => i.trim()) : [];
      if (items.some((i) => !/^[A-Za-z0-9_./-]+$/.test(i) || NOT_A_STRING.some((r) => r.test(i)))) return null;
      out[key] = items;
      continue;
    }
    const scalar = simpleScalar(value);
    if (scalar === null) return null;
    out[key] = scalar;
  }
  return out;
}
