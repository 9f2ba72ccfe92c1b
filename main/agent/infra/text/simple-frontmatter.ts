/**
 * Frontmatter of one `key: value` per line, read without the YAML parser (skills, sub-agent types).
 */
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
 * the YAML parser; where this reader answers, the answer equals the lenient parser's (skills/frontmatter.test.ts checks).
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
