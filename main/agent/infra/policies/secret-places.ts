/**
 * The one list of where secrets live, grouped by kind. Every wall reads it: the file tools (Read, Grep,
 * Glob, @-mentions, attachments) refuse these files whatever the path form; the OS sandbox hides them from
 * commands (in the user's home); checkpoints never store them. A test covers each entry.
 *
 * An entry is a path as it stands under the user's home (`/`-separated). The file tools match it at any
 * folder (`…/.aws/credentials` anywhere is as secret as `~/.aws/credentials`), case-insensitively; a `dir`
 * entry covers everything inside it, except the `publicNames` listed (an SSH folder's public keys).
 */
export type SecretKind =
  | 'keys'
  | 'agent tokens'
  | 'cloud'
  | 'databases'
  | 'package registries'
  | 'version control'
  | 'tokens'
  | 'shell histories'
  | 'browsers'
  | 'keyrings'
  | 'environment';

export interface SecretPlace {
  kind: SecretKind;
  path: string;
  dir?: true;
  /** Names inside a secret folder that are not secret (file tools only; the sandbox hides the folder whole). */
  publicNames?: RegExp;
  /** A secret only when its content says so (a token in it): the file tools look; the sandbox hides the home copy. */
  byContent?: true;
}

export const SECRET_PLACES: readonly SecretPlace[] = [
  // Private keys and the stores that hold them.
  { kind: 'keys', path: '.ssh', dir: true, publicNames: /^(known_hosts(\.old)?|config|authorized_keys|.*\.pub)$/ },
  { kind: 'keys', path: '.gnupg', dir: true },
  // Other coding agents' sign-ins.
  { kind: 'agent tokens', path: '.claude/.credentials.json' },
  { kind: 'agent tokens', path: '.claude.json' },
  { kind: 'agent tokens', path: '.codex/auth.json' },
  { kind: 'agent tokens', path: '.config/github-copilot', dir: true },
  { kind: 'agent tokens', path: '.gemini/oauth_creds.json' },
  // Cloud providers and cluster access.
  { kind: 'cloud', path: '.aws', dir: true },
  { kind: 'cloud', path: '.azure', dir: true },
  { kind: 'cloud', path: '.config/gcloud', dir: true },
  { kind: 'cloud', path: '.gcp', dir: true },
  { kind: 'cloud', path: '.kube', dir: true },
  { kind: 'cloud', path: '.docker/config.json' },
  { kind: 'cloud', path: '.s3cfg' },
  { kind: 'cloud', path: '.boto' },
  { kind: 'cloud', path: '.config/rclone/rclone.conf' },
  { kind: 'cloud', path: '.config/doctl/config.yaml' },
  { kind: 'cloud', path: '.terraform.d/credentials.tfrc.json' },
  { kind: 'cloud', path: '.vault-token' },
  // Database passwords.
  { kind: 'databases', path: '.pgpass' },
  { kind: 'databases', path: '.my.cnf' },
  { kind: 'databases', path: '.mylogin.cnf' },
  // Package registries' publish tokens.
  { kind: 'package registries', path: '.npmrc', byContent: true },
  { kind: 'package registries', path: '.yarnrc.yml', byContent: true },
  { kind: 'package registries', path: '.pypirc' },
  { kind: 'package registries', path: '.cargo/credentials' },
  { kind: 'package registries', path: '.cargo/credentials.toml' },
  { kind: 'package registries', path: '.gem/credentials' },
  { kind: 'package registries', path: '.m2/settings.xml' },
  { kind: 'package registries', path: '.m2/settings-security.xml' },
  { kind: 'package registries', path: '.gradle/gradle.properties' },
  { kind: 'package registries', path: '.config/composer/auth.json' },
  { kind: 'package registries', path: '.composer/auth.json' },
  // Git hosts.
  { kind: 'version control', path: '.git-credentials' },
  { kind: 'version control', path: '.config/git/credentials' },
  { kind: 'version control', path: '.config/gh', dir: true },
  { kind: 'version control', path: '.config/hub' },
  { kind: 'tokens', path: '.netrc' },
  { kind: 'tokens', path: '_netrc' },
  // What was typed at a prompt: passwords and tokens pasted on command lines.
  { kind: 'shell histories', path: '.bash_history' },
  { kind: 'shell histories', path: '.zsh_history' },
  { kind: 'shell histories', path: '.histfile' },
  { kind: 'shell histories', path: '.sh_history' },
  { kind: 'shell histories', path: '.local/share/fish/fish_history' },
  { kind: 'shell histories', path: '.config/fish/fish_history' },
  { kind: 'shell histories', path: '.python_history' },
  { kind: 'shell histories', path: '.node_repl_history' },
  { kind: 'shell histories', path: '.psql_history' },
  { kind: 'shell histories', path: '.mysql_history' },
  { kind: 'shell histories', path: '.sqlite_history' },
  { kind: 'shell histories', path: '.rediscli_history' },
  // Browser profiles: saved passwords (logins.json, Login Data) and session cookies (Cookies).
  { kind: 'browsers', path: '.mozilla', dir: true },
  { kind: 'browsers', path: 'snap/firefox/common/.mozilla', dir: true },
  { kind: 'browsers', path: '.config/google-chrome', dir: true },
  { kind: 'browsers', path: '.config/chromium', dir: true },
  { kind: 'browsers', path: '.config/BraveSoftware', dir: true },
  { kind: 'browsers', path: '.config/microsoft-edge', dir: true },
  { kind: 'browsers', path: '.config/vivaldi', dir: true },
  { kind: 'browsers', path: 'Library/Application Support/Google/Chrome', dir: true },
  { kind: 'browsers', path: 'Library/Application Support/Firefox', dir: true },
  { kind: 'browsers', path: 'Library/Application Support/BraveSoftware', dir: true },
  { kind: 'browsers', path: 'Library/Application Support/Microsoft Edge', dir: true },
  { kind: 'browsers', path: 'Library/Cookies', dir: true },
  // Password stores and keyrings.
  { kind: 'keyrings', path: '.local/share/keyrings', dir: true },
  { kind: 'keyrings', path: '.password-store', dir: true },
  { kind: 'keyrings', path: 'Library/Keychains', dir: true },
];

/** File names that hold secrets wherever they are (a project's own `.env` too), by kind. */
export const SECRET_NAMES: ReadonlyArray<{ kind: SecretKind; names: readonly string[] }> = [
  { kind: 'environment', names: ['.env', '.envrc'] },
  { kind: 'keys', names: ['id_rsa', 'id_dsa', 'id_ed25519', 'id_ecdsa', 'id_ed25519_sk', 'id_ecdsa_sk'] },
  {
    kind: 'cloud',
    names: [
      'credentials',
      'application_default_credentials.json',
      'credentials.db',
      'access_tokens.db',
      'legacy_credentials',
      'accesstokens.json',
      'msal_token_cache.json',
      'credentials.toml',
      'credentials.tfrc.json',
    ],
  },
  { kind: 'tokens', names: ['.git-credentials', '.netrc', '_netrc', '.pypirc', '.pgpass', '.vault-token', '.s3cfg'] },
];

/**
 * What of Deft's own home a sandboxed command must not read, relative to it: the secrets file (API keys),
 * the user's MCP file (server definitions often carry tokens in `env`), the checkpoint stores (every
 * workspace's file contents), and every other workspace's sessions (their conversations and tool output).
 * The current workspace's own sessions stay readable: a hook reads its transcript.
 */
export const DEFT_HOME_SECRETS = { files: /^(secrets[\w.-]*\.json|mcp\.json)$/, dirs: ['checkpoints'], perWorkspace: 'sessions' } as const;
