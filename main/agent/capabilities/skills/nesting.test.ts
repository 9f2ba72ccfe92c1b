import { describe, expect, it } from 'vitest';
import { TurnSkills } from './nesting';

describe('TurnSkills', () => {
  it('places a skill under the latest one read earlier whose instructions name it', () => {
    const skills = new TurnSkills();
    skills.record('t', 0, 'deploy', ['deploy'], 'Run the tests, then use the release skill.');
    skills.record('t', 1, 'notes', ['notes'], 'Write notes.');
    expect(skills.place('t', 2, 'release')).toEqual({ kind: 'load', chain: ['deploy', 'release'], parent: 'deploy' });
    // Named only as part of another word, or read at the same step: not a parent.
    expect(skills.place('t', 2, 'test')).toEqual({ kind: 'load', chain: ['test'] });
    expect(skills.place('t', 1, 'release')).toEqual({ kind: 'load', chain: ['deploy', 'release'], parent: 'deploy' });
    skills.record('t', 2, 'writer', ['writer'], 'Call release when done.');
    expect(skills.place('t', 2, 'release')).toEqual({ kind: 'load', chain: ['deploy', 'release'], parent: 'deploy' });
    expect(skills.place('t', 3, 'release')).toEqual({ kind: 'load', chain: ['writer', 'release'], parent: 'writer' });
  });

  it('answers "loaded" for a skill in the conversation (any case), until a compaction leaves it out; a new turn starts afresh', () => {
    const skills = new TurnSkills();
    skills.record('t', 1, 'Review', ['Review'], 'x');
    expect(skills.place('t', 2, 'review')).toEqual({ kind: 'loaded' });
    skills.keepOnly(new Set(['other']));
    expect(skills.place('t', 2, 'review')).toEqual({ kind: 'load', chain: ['review'] });
    skills.record('t', 2, 'review', ['review'], 'x');
    expect(skills.place('t2', 1, 'review')).toEqual({ kind: 'load', chain: ['review'] });
  });

  it('refuses a fourth level, naming the whole chain', () => {
    const skills = new TurnSkills();
    skills.record('t', 1, 'a', ['a'], 'then b');
    skills.record('t', 2, 'b', ['a', 'b'], 'then c');
    skills.record('t', 3, 'c', ['a', 'b', 'c'], 'then d');
    expect(skills.place('t', 4, 'd')).toEqual({ kind: 'too_deep', chain: ['a', 'b', 'c', 'd'] });
  });
});
