import { splitFrontmatter } from './frontmatter';
import { type ParsedSkillFile, type SkillArgument, SkillParseError, type SkillType } from './types';

const TYPES: readonly SkillType[] = ['prompt', 'inline', 'flow', 'reference'];
const NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,63}$/u;
/** NAME for ASCII names (nearly all): matching the Unicode classes costs V8 a few tenths of a millisecond a name, cold (issue 36). */
const ASCII_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const FLAT_DESCRIPTION_CHARS = 240;

/** Every spelling other agents use for a field, first match wins. */
const KEYS = {
  name: ['name'],
  description: ['description'],
  type: ['type'],
  whenToUse: ['whenToUse', 'when-to-use', 'when_to_use'],
  disableModelInvocation: ['disableModelInvocation', 'disable-model-invocation', 'disable_model_invocation'],
  userInvocable: ['userInvocable', 'user-invocable', 'user_invocable'],
  arguments: ['arguments'],
  argumentHint: ['argumentHint', 'argument-hint', 'argument_hint'],
  hasSubSkill: ['hasSubSkill', 'has-sub-skill', 'has_sub_skill'],
  license: ['license'],
  compatibility: ['compatibility'],
  metadata: ['metadata'],
  allowedTools: ['allowedTools', 'allowed-tools', 'allowed_tools'],
} as const;
const KNOWN = new Set<string>(Object.values(KEYS).flat());

export interface ParseOptions {
  /** `bundle`: a folder's SKILL.md (name and description required). `flat`: a `<name>.md` at a root's top level. */
  format: 'bundle' | 'flat';
  /** For flat files: the file name without `.md`. */
  fallbackName?: string;
}

/** 1–64 letters, digits, "-", "_" or ".", starting with a letter or digit. */
export function isUsableSkillName(name: string): boolean {
  return ASCII_NAME.test(name) || NAME.test(name);
}

/** Parse a skill file. Throws SkillParseError with a reason a person can act on. */
export function parseSkillText(text: string, options: ParseOptions): ParsedSkillFile {
  const { data, body: rawBody } = splitFrontmatter(text);
  const fm = data ?? {};
  const body = rawBody.replace(/\r\n/g, '\n').trim();
  if (options.format === 'bundle' && data === null) {
    throw new SkillParseError('SKILL.md has no frontmatter: start the file with a --- block giving name and description');
  }

  const nameValue = pick(fm, KEYS.name);
  if (nameValue !== null && typeof nameValue === 'object')
    throw new SkillParseError('the name must be a single word such as "my-skill", not a list or mapping');
  let displayName = text1(nameValue);
  if (!displayName) {
    if (options.format === 'bundle' || !options.fallbackName) throw new SkillParseError('the frontmatter has no name (add "name: my-skill")');
    displayName = options.fallbackName;
  }
  if (!isUsableSkillName(displayName)) {
    throw new SkillParseError(
      `the name "${displayName.slice(0, 80)}" is not usable: use 1–64 letters, digits, "-", "_" or "." (no spaces), starting with a letter or digit`,
    );
  }

  let description = text1(pick(fm, KEYS.description));
  if (!description) {
    if (options.format === 'bundle') throw new SkillParseError('the frontmatter has no description (add "description: what it does and when to use it")');
    description = firstLine(body) || displayName;
  }

  const typeValue = pick(fm, KEYS.type);
  const typeText = typeValue !== null && typeof typeValue === 'object' ? JSON.stringify(typeValue) : text1(typeValue);
  let type: SkillType = 'prompt';
  if (typeText) {
    const t = typeText.toLowerCase();
    if (!TYPES.includes(t as SkillType)) throw new SkillParseError(`unsupported type "${typeText.slice(0, 40)}" (use prompt, inline, flow or reference)`);
    type = t as SkillType;
  }

  const metadataValue = pick(fm, KEYS.metadata);
  const metadata = metadataValue && typeof metadataValue === 'object' && !Array.isArray(metadataValue) ? (metadataValue as Record<string, unknown>) : undefined;
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fm)) if (!KNOWN.has(key)) extra[key] = value;

  const parsed: ParsedSkillFile = {
    displayName,
    description,
    type,
    disableModelInvocation: flag(pick(fm, KEYS.disableModelInvocation), false),
    userInvocable: flag(pick(fm, KEYS.userInvocable), true),
    arguments: argumentList(pick(fm, KEYS.arguments)),
    hasSubSkill: flag(pick(fm, KEYS.hasSubSkill) ?? (metadata ? pick(metadata, KEYS.hasSubSkill) : undefined), false),
    extra,
    body,
  };
  const whenToUse = text1(pick(fm, KEYS.whenToUse));
  if (whenToUse) parsed.whenToUse = whenToUse;
  const hint = argumentHint(pick(fm, KEYS.argumentHint));
  if (hint) parsed.argumentHint = hint;
  const license = text1(pick(fm, KEYS.license));
  if (license) parsed.license = license;
  const compatibility = text1(pick(fm, KEYS.compatibility));
  if (compatibility) parsed.compatibility = compatibility;
  if (metadata) parsed.metadata = metadata;
  const tools = wordList(pick(fm, KEYS.allowedTools));
  if (tools.length) parsed.allowedTools = tools;
  return parsed;
}

function pick(fm: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (Object.hasOwn(fm, key)) return fm[key];
  return undefined;
}

/** A scalar as trimmed text; lists and mappings are not text. */
function text1(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value).trim();
  return text || undefined;
}

function flag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(v)) return true;
    if (['false', 'no', 'off', '0'].includes(v)) return false;
  }
  if (typeof value === 'number') return value !== 0;
  return fallback;
}

/**
 * `allowed-tools`: a list, or a string separated by spaces (Agent Skills) or commas (Claude Code).
 * Separators inside parentheses belong to the entry: `Bash(git add:*), Read` is two tools.
 */
function wordList(value: unknown): string[] {
  if (typeof value === 'string') {
    const words: string[] = [];
    let depth = 0;
    let word = '';
    for (const c of value) {
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && /[\s,]/.test(c)) {
        if (word) words.push(word);
        word = '';
      } else word += c;
    }
    if (word) words.push(word);
    return words;
  }
  if (Array.isArray(value))
    return value
      .filter((v) => typeof v === 'string' || typeof v === 'number')
      .map((v) => String(v).trim())
      .filter(Boolean);
  return [];
}

/** `argument-hint`: text; Claude Code's `argument-hint: [message]` reads as a YAML list, shown again as `[message]`. */
function argumentHint(value: unknown): string | undefined {
  if (!Array.isArray(value)) return text1(value);
  const items = value.map(text1).filter((v): v is string => v !== undefined);
  return items.length ? items.map((v) => `[${v}]`).join(' ') : undefined;
}

/** `arguments`: a list or a whitespace-separated string of names (or `{name, description}` entries). Numeric names are dropped: `$0` already means the first argument. */
function argumentList(value: unknown): SkillArgument[] {
  const entries: SkillArgument[] = [];
  const items = typeof value === 'string' ? value.split(/[\s,]+/) : Array.isArray(value) ? value : [];
  for (const item of items) {
    let name: string | undefined;
    let description: string | undefined;
    if (typeof item === 'string' || typeof item === 'number') name = String(item).trim();
    else if (item && typeof item === 'object' && 'name' in item) {
      name = text1((item as { name: unknown }).name);
      description = text1((item as { description?: unknown }).description);
    }
    if (!name || /^\d+$/.test(name) || !/^[A-Za-z_][\w-]*$/.test(name) || name === 'ARGUMENTS') continue;
    if (entries.some((e) => e.name === name)) continue;
    entries.push(description ? { name, description } : { name });
  }
  return entries;
}

/** A flat file's description: its first non-empty line, without Markdown heading marks, at most 240 characters. */
function firstLine(body: string): string {
  const line = body.split('\n').find((l) => l.trim()) ?? '';
  const text = line.replace(/^#+\s*/, '').trim();
  return text.length > FLAT_DESCRIPTION_CHARS ? `${text.slice(0, FLAT_DESCRIPTION_CHARS - 1)}…` : text;
}
