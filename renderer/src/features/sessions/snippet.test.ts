import { describe, expect, it } from 'vitest';
import { snippetText } from './snippet';

describe('session search snippets', () => {
  it('read as text, not Markdown source', () => {
    expect(snippetText('## Plan\n- **Fix** the `format()` helper, see [the docs](https://x.dev/a)')).toBe('Plan Fix the format() helper, see the docs');
    expect(snippetText('… rounding is _off_ by one in ~~two~~ places:\n```js\nconst a = 1;')).toBe('… rounding is off by one in two places: const a = 1;');
    expect(snippetText('| Check | Result |\n| --- | --- |\n| Tests | pass |')).toBe('Check · Result Tests · pass');
    expect(snippetText('snake_case_name and 2 * 3 * 4')).toBe('snake_case_name and 2 * 3 * 4');
  });
});
