import { describe, expect, it } from 'vitest';
import { SECRET_BY_CONTENT, isSensitivePath, secretPathHint, sortSecretPaths } from './sensitive';
import { SECRET_NAMES, SECRET_PLACES } from './secret-places';

describe('sortSecretPaths', () => {
  it('answers as isSensitivePath and SECRET_BY_CONTENT do for each path, on every name and place of the list', () => {
    const names = [
      ...SECRET_NAMES.flatMap((group) => group.names),
      ...SECRET_PLACES.map((place) => place.path),
      ...SECRET_PLACES.filter((place) => place.dir).flatMap((place) => [`${place.path}/x`, `${place.path}/deep/er/x.pub`, `${place.path}/config`]),
      '.env.local',
      '.env.example',
      'id_rsa',
      'id_rsa.pub',
      'id_ed25519_work.pub',
      'id_rsa.bak',
      'credentials-old',
      '.deft/secrets.json',
      '.deft/secrets.local.json',
      '.deft/settings.json',
      'key.pem',
      'store.p12',
      '.npmrc',
      'sub.npmrc',
      'a\\.env',
      'a\\b\\id_rsa',
      'plain.ts',
      'README.md',
    ];
    const folders = ['', 'src/', 'a/b/', 'SRC/Deep/', '.ssh/', 'x/.gnupg/y/', '.deft/', 'app/.DEFT/', 'w\\in/'];
    const paths: string[] = [];
    for (const folder of folders)
      for (const name of names) {
        paths.push(`${folder}${name}`, `${folder}${name.toUpperCase()}`);
      }
    for (let i = 0; i < 2000; i++) paths.push(`src/m${i % 7}/d${i % 13}/f${i}.ts`);
    // Non-ASCII names that lower-case to names on the list (the Kelvin sign is a "k").
    paths.push('.\u212aube/config', 'x/.\u212aube/y', '\u212aey.pem'.replace('\u212a', 'k'), 'İd_rsa');
    const { secret, byContent } = sortSecretPaths(paths);
    // The hint a caller with many paths asks first matches every path sorted out here, and passes plain ones by.
    const hint = secretPathHint(['.deft-home/x']);
    const sorted = [...secret, ...byContent];
    expect(sorted.filter((p) => !hint.test(p))).toEqual([]);
    expect(paths.filter((p) => /^src\/m\d\/d\d+\/f\d+\.ts$/.test(p)).some((p) => hint.test(p))).toBe(false);
    expect(hint.test('a/.deft-home/x/y')).toBe(true);
    expect(secret).toContain('.\u212aube/config');
    const expected = paths.filter((p) => isSensitivePath(p));
    expect(expected.length).toBeGreaterThan(100);
    expect(new Set(secret)).toEqual(new Set(expected));
    expect(new Set(byContent)).toEqual(new Set(paths.filter((p) => !isSensitivePath(p) && SECRET_BY_CONTENT.test(p))));
  });
});
