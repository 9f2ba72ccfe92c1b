import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_PLACES, type SecretPlace } from '#infra/policies/secret-places';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';

/** A file standing for the entry, with content that makes it a secret. */
export function secretFileFor(place: SecretPlace): { path: string; content: string } {
  const path = place.dir ? `${place.path}/stored-secret` : place.path;
  return { path, content: place.byContent ? '//registry.npmjs.org/:_authToken=xyzzy-token\nnpmAuthToken: xyzzy-token\n' : 'xyzzy-token\n' };
}

let kit: FileToolKit;
beforeAll(async () => {
  kit = await fileToolKit();
});
afterAll(() => kit.dispose());

describe('the one list of secrets: the file tools refuse every entry (finding 6)', () => {
  it.each(SECRET_PLACES.map((place) => [place.kind, place.path, place] as const))('%s: Read and Grep refuse ~/%s', async (_kind, _path, place) => {
    const home = join(kit.outside, 'user-home');
    const file = secretFileFor(place);
    const full = await kit.put(join(home, file.path), file.content);
    const read = await kit.call('Read', { path: full });
    expect(read.result.isError, read.text).toBe(true);
    expect(read.text).toMatch(/sensitive file/);
    const grep = await kit.call('Grep', { pattern: 'xyzzy', path: full, output_mode: 'content' });
    expect(grep.text).not.toContain('xyzzy-token');
  });

  it('the public files of a secret folder stay readable (an SSH folder’s known_hosts, config and public keys)', async () => {
    for (const name of ['known_hosts', 'config', 'id_ed25519.pub']) {
      const full = await kit.put(join(kit.outside, 'user-home', '.ssh', name), 'public\n');
      expect((await kit.call('Read', { path: full })).result.isError, name).toBeFalsy();
    }
  });

  it("Deft's own: its secrets and MCP file, the checkpoint stores and another workspace's sessions are refused; this workspace's sessions are not", async () => {
    const refused = [
      join(kit.outside, 'mcp.json'),
      join(kit.outside, 'secrets.safe.json'),
      join(kit.outside, 'checkpoints', 'other-1234.git', 'HEAD'),
      join(workspaceSessionsDir(kit.outside, '/elsewhere/project'), 's1', 'log.jsonl'),
    ];
    for (const path of refused) {
      await kit.put(path, 'xyzzy-token\n');
      expect((await kit.call('Read', { path })).text, path).toMatch(/sensitive file/);
    }
    const own = await kit.put(join(workspaceSessionsDir(kit.outside, kit.workspace), 's1', 'tool-output.txt'), 'the rest of a long output\n');
    expect((await kit.call('Read', { path: own })).text).toContain('the rest of a long output');
  });
});
