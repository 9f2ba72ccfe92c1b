import { picomatchPackage } from '#infra/platform/on-demand';

/**
 * Rewrite the rules of an ignore file that lives `rel` folders above the workspace (`rel` is the
 * workspace's path relative to that file's folder, '' for the same folder) so they mean the same with
 * the workspace as the root. Rules without a slash apply at any depth and stay as they are; anchored
 * rules are matched against `rel` one segment at a time and keep what is left, or are dropped when
 * they cannot reach into the workspace. A rule matching the workspace itself or a folder above it is
 * dropped: the user opened that folder to work in it.
 */
export function translateIgnoreFile(text: string, rel: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(?<!\\)\s+$/, '');
    if (!line || line.startsWith('#')) continue;
    const rule = translateRule(line, rel);
    if (rule) out.push(rule);
  }
  return out;
}

function translateRule(line: string, rel: string): string | null {
  const negate = line.startsWith('!');
  let body = negate ? line.slice(1) : line;
  const dirOnly = body.endsWith('/');
  if (dirOnly) body = body.slice(0, -1);
  if (!body) return null;
  const wrap = (pattern: string) => `${negate ? '!' : ''}${pattern}${dirOnly ? '/' : ''}`;
  if (!rel) return line;
  if (!body.includes('/')) return line;
  const pattern = body.replace(/^\//, '').split('/');
  const here = rel.split('/');
  for (let i = 0; i < pattern.length; i++) {
    const segment = pattern[i]!;
    if (segment === '**') {
      const rest = pattern.slice(i + 1).join('/');
      return rest ? wrap(`**/${rest}`) : null;
    }
    if (i >= here.length) return wrap(`/${pattern.slice(i).join('/')}`);
    if (!picomatchPackage().isMatch(here[i]!, segment, { dot: true })) return null;
  }
  return null;
}
