/**
 * A search snippet as text to read, not Markdown source: emphasis and code marks, link targets,
 * heading and list markers, fences and table pipes dropped, whitespace folded.
 */
export function snippetText(markdown: string): string {
  return markdown
    .replace(/```[\w-]*/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/(\*\*|__|~~)(?=\S)([^]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?![\w*])/g, '$1$2')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/^\s*\|?[\s:|-]*-{3,}[\s:|-]*$/gm, '')
    .replace(/^\s*\||\|\s*$/gm, '')
    .replace(/\s*\|\s*/g, ' · ')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/^[\s·:-]+|[\s·]+$/g, '')
    .replace(/\s+/g, ' ');
}
