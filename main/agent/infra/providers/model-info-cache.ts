import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '#infra/platform/files';

/**
 * What an endpoint's model list said about one model, kept under Deft's home for a day, so a one-shot
 * `deft run` does not ask the server for its model list on every run (the list is only read to learn
 * whether the model takes images). Keyed by a hash: the file never holds the base URL or the key.
 */
export interface ModelInfoCache {
  get(key: ModelInfoKey): Promise<{ imageInput: boolean | undefined } | null>;
  set(key: ModelInfoKey, imageInput: boolean | undefined): Promise<void>;
}

export interface ModelInfoKey {
  kind: string;
  baseUrl: string;
  model: string;
  hasKey: boolean;
}

const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_ENTRIES = 64;

type Entries = Record<string, { at: number; imageInput?: boolean }>;

export function modelInfoCache(home: string, now: () => number = Date.now): ModelInfoCache {
  const file = join(home, 'cache', 'model-info.json');
  const hash = (key: ModelInfoKey) =>
    createHash('sha256')
      .update(JSON.stringify([key.kind, key.baseUrl, key.model, key.hasKey]))
      .digest('hex')
      .slice(0, 32);
  const read = async (): Promise<Entries> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Entries) : {};
    } catch {
      return {};
    }
  };
  return {
    async get(key) {
      const entry = (await read())[hash(key)];
      if (!entry || typeof entry.at !== 'number' || now() - entry.at > TTL_MS || entry.at > now()) return null;
      return { imageInput: typeof entry.imageInput === 'boolean' ? entry.imageInput : undefined };
    },
    async set(key, imageInput) {
      const entries = await read();
      entries[hash(key)] = { at: now(), ...(imageInput !== undefined ? { imageInput } : {}) };
      // The newest entries only: a user trying many endpoints does not grow the file without end.
      const kept = Object.entries(entries)
        .filter(([, e]) => e && typeof e.at === 'number')
        .sort(([, a], [, b]) => b.at - a.at)
        .slice(0, MAX_ENTRIES);
      await mkdir(dirname(file), { recursive: true, mode: 0o700 })
        .then(() => writeFileAtomic(file, JSON.stringify(Object.fromEntries(kept)), 0o600))
        .catch(() => {});
    },
  };
}
