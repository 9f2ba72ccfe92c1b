import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ProviderKind } from '#protocol/schemas/settings';
import { writeFileAtomic } from '../platform/files';
import { trimBaseUrl } from '../providers/base-url';

/** The provider part of `<home>/settings.json` (the key is kept in the secret store). */
export const StoredProvider = z.object({
  kind: ProviderKind,
  baseUrl: z.string(),
  model: z.string(),
  imageInput: z.boolean().optional(),
  contextWindow: z.number().int().positive().optional(),
});
export type StoredProvider = z.infer<typeof StoredProvider>;

/**
 * `<home>/settings.json`. Other parts of the app keep their own top-level keys in the same file
 * (e.g. `permissions`), so writes preserve what they do not know.
 */
export class SettingsStore {
  readonly path: string;

  constructor(private readonly home: string) {
    this.path = join(home, 'settings.json');
  }

  async readRaw(): Promise<Record<string, unknown>> {
    try {
      const parsed = JSON.parse(await readFile(this.path, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  async provider(): Promise<StoredProvider | null> {
    const parsed = StoredProvider.safeParse((await this.readRaw()).provider);
    return parsed.success ? parsed.data : null;
  }

  async update(key: string, value: unknown): Promise<void> {
    const raw = await this.readRaw();
    raw[key] = value;
    await mkdir(this.home, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, JSON.stringify(raw, null, 2) + '\n', 0o600);
  }
}

/** The key under which a provider's API key is stored, so switching providers keeps each key. */
export function secretKeyFor(provider: { kind: string; baseUrl: string }): string {
  return `apiKey:${provider.kind}:${trimBaseUrl(provider.baseUrl)}`;
}
