import { describe, expect, it } from 'vitest';
import type { SkillCatalog } from '#protocol';
import { useSkills } from './skills';

const catalog = (version: number): SkillCatalog => ({ version, skills: [], skipped: [], roots: [] });

describe('skills store', () => {
  it('keeps the newest catalog when answers arrive out of order, and clears a load error with a new one', () => {
    const store = useSkills.getState();
    store.setError('The skills folder could not be read.');
    store.setCatalog(catalog(3));
    expect(useSkills.getState()).toMatchObject({ catalog: { version: 3 }, error: null });
    store.setCatalog(catalog(2));
    expect(useSkills.getState().catalog?.version).toBe(3);
    store.setCatalog(catalog(3));
    store.setCatalog(catalog(4));
    expect(useSkills.getState().catalog?.version).toBe(4);
  });
});
