/** The line a message adds to an instruction file: `# text` (one `#`, not a `##` heading), else null. */
export function memoryLine(text: string): string | null {
  const match = /^#(?!#)\s*(\S[^\n]*)$/.exec(text.trim());
  return match ? match[1]!.trim() : null;
}
