import { SettingsStore } from '#infra/settings/settings-store';

/** `"lsp"` in `<home>/settings.json` (Deft's own settings only: a workspace cannot configure what runs here). */
export interface LspSettings {
  /** Language servers run at all. */
  enabled: boolean;
  /** Languages whose server the user turned off ("typescript", "python", …; a family covers its variants). */
  disabledLanguages: string[];
  /** How long a Write or Edit waits for its diagnostics before returning without them. */
  diagnosticsWaitMs: number;
  /** Warnings count as well as errors. */
  warnings: boolean;
  /** A server unused this long is shut down (0: never). */
  idleMinutes: number;
  /** The user's servers, as written (checked by userServers). */
  servers: unknown;
}

export const DEFAULT_LSP_SETTINGS: LspSettings = {
  enabled: true,
  disabledLanguages: [],
  diagnosticsWaitMs: 4_000,
  warnings: false,
  idleMinutes: 10,
  servers: undefined,
};

const number = (value: unknown, min: number, max: number, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback;

/** The settings, each key falling back to its default on its own when unreadable. */
export async function readLspSettings(home: string): Promise<LspSettings> {
  const raw = (await new SettingsStore(home).readRaw()).lsp;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return DEFAULT_LSP_SETTINGS;
  const r = raw as Record<string, unknown>;
  const d = DEFAULT_LSP_SETTINGS;
  return {
    enabled: typeof r.enabled === 'boolean' ? r.enabled : d.enabled,
    disabledLanguages: Array.isArray(r.disabledLanguages) ? r.disabledLanguages.filter((l): l is string => typeof l === 'string') : d.disabledLanguages,
    diagnosticsWaitMs: number(r.diagnosticsWaitMs, 0, 120_000, d.diagnosticsWaitMs),
    warnings: typeof r.warnings === 'boolean' ? r.warnings : d.warnings,
    idleMinutes: number(r.idleMinutes, 0, 24 * 60, d.idleMinutes),
    servers: r.servers,
  };
}

/** Turn one language's server on or off (kept with the other `lsp` keys). */
export async function setLanguageEnabled(home: string, language: string, enabled: boolean): Promise<void> {
  const store = new SettingsStore(home);
  const raw = (await store.readRaw()).lsp;
  const current = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const list = Array.isArray(current.disabledLanguages) ? current.disabledLanguages.filter((l): l is string => typeof l === 'string') : [];
  const next = enabled ? list.filter((l) => l !== language) : [...new Set([...list, language])];
  await store.update('lsp', { ...current, disabledLanguages: next });
}
