import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../platform/files';

/** Where API keys live. Electron supplies one backed by safeStorage; elsewhere a 0600 file. */
export interface SecretStore {
  readonly kind: 'safe-storage' | 'file';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string | undefined): Promise<void>;
}

/** Secrets as a JSON map in a file only the user can read. Values are encoded by `encode`/`decode`. */
export class FileSecretStore implements SecretStore {
  readonly kind: 'safe-storage' | 'file';

  constructor(
    private readonly path: string,
    private readonly codec: { kind: 'safe-storage' | 'file'; encode(v: string): string; decode(v: string): string } = {
      kind: 'file',
      encode: (v) => v,
      decode: (v) => v,
    },
  ) {
    this.kind = codec.kind;
  }

  static inHome(home: string): FileSecretStore {
    return new FileSecretStore(join(home, 'secrets.json'));
  }

  private async readAll(): Promise<Record<string, string>> {
    try {
      const parsed = JSON.parse(await readFile(this.path, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  async get(key: string): Promise<string | undefined> {
    const value = (await this.readAll())[key];
    if (typeof value !== 'string') return undefined;
    try {
      return this.codec.decode(value);
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string | undefined): Promise<void> {
    const all = await this.readAll();
    if (value === undefined || value === '') delete all[key];
    else all[key] = this.codec.encode(value);
    await writeFileAtomic(this.path, JSON.stringify(all, null, 2) + '\n', 0o600);
  }
}
