/**
 * The environment every command gets, sandboxed or not. Deft's own variables (`DEFT_*`: the API key, the
 * web host's token…) and the provider keys Deft may use never reach a command, nor any variable whose
 * value is a secret Deft holds (a key the user also exported under another name). Git never uses a
 * bare repository it merely finds (`safe.bareRepository=explicit`), so a plain folder shaped like one
 * (HEAD, config with core.fsmonitor, objects/) cannot run code through `git status`.
 */

/** Provider keys Deft reads or that SDKs it embeds read. */
const PROVIDER_KEYS = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'MOONSHOT_API_KEY',
  'KIMI_API_KEY',
  'DEEPSEEK_API_KEY',
  'OPENROUTER_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'TOGETHER_API_KEY',
  'XAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
]);

/** Variables whose values are Deft's own or that change how git finds repositories. */
function dropped(name: string): boolean {
  const upper = name.toUpperCase();
  return upper.startsWith('DEFT_') || PROVIDER_KEYS.has(upper) || upper.startsWith('GIT_CONFIG') || upper === 'GIT_DIR' || upper === 'GIT_WORK_TREE';
}

/** Settings that keep programs from waiting for a person or painting colours. */
export const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  TERM: 'dumb',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: 'true',
  PYTHONUNBUFFERED: '1',
};

export interface EnvironmentOptions {
  /** The environment to start from (default: this process's). */
  base?: Readonly<Record<string, string | undefined>>;
  /** Secret values Deft holds (API keys): a variable carrying one is dropped, whatever its name. */
  secrets?: readonly string[];
  tmpDir?: string;
  /** Stop git's repository search above this folder (the workspace's parent when it is a repository). */
  gitCeiling?: string;
  extra?: Readonly<Record<string, string>>;
}

/** Build a command's complete environment (spawn it with exactly this, not merged with process.env). */
export function scrubbedEnvironment(options: EnvironmentOptions = {}): Record<string, string> {
  const base = options.base ?? process.env;
  const secrets = new Set((options.secrets ?? []).filter((s) => s.length >= 8));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || dropped(key)) continue;
    if (secrets.size && [...secrets].some((secret) => value.includes(secret))) continue;
    env[key] = value;
  }
  Object.assign(env, NON_INTERACTIVE, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.bareRepository', GIT_CONFIG_VALUE_0: 'explicit' });
  delete env.FORCE_COLOR;
  if (options.tmpDir) Object.assign(env, { TMPDIR: options.tmpDir, TMP: options.tmpDir, TEMP: options.tmpDir });
  if (options.gitCeiling) env.GIT_CEILING_DIRECTORIES = options.gitCeiling;
  Object.assign(env, options.extra);
  return env;
}
