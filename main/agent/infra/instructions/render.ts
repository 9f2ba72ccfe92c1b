import type { InstructionFile } from './types';

/** The opening of every instruction block: the context meter counts what lies between it and its closing tag. */
export const INSTRUCTIONS_TAG = 'instructions';

const SCOPES: Record<InstructionFile['scope'], string> = { user: "the user's own", project: 'the project', nested: 'a subfolder' };

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** One file as the model reads it. */
export function instructionBlock(file: InstructionFile): string {
  const from = file.importedBy ? ` imported-by="${attribute(file.importedBy)}"` : '';
  return `<${INSTRUCTIONS_TAG} file="${attribute(file.display)}" from="${SCOPES[file.scope]}"${from}>\n${file.text.trim()}\n</${INSTRUCTIONS_TAG}>`;
}

/** The system prompt's section of instruction files, or null when there are none. */
export function instructionsSection(files: readonly InstructionFile[]): string | null {
  if (!files.length) return null;
  return [
    '# Instructions from files',
    "These come from the user's and the project's instruction files (AGENTS.md, CLAUDE.md and what they import). Follow them; where two disagree, the later, more specific one wins. Files in subfolders are added when you first work there.",
    ...files.map(instructionBlock),
  ].join('\n\n');
}

/** A subfolder's file, announced when the agent first reads or edits something under it. */
export function nestedAnnouncement(folder: string, files: readonly InstructionFile[]): string {
  return [`Instructions for work in ${folder} (from its instruction files; they add to the ones you have):`, ...files.map(instructionBlock)].join('\n\n');
}

/** Characters of `text` that lie inside instruction blocks (for the context meter's breakdown). */
export function instructionChars(text: string): number {
  let total = 0;
  const open = `<${INSTRUCTIONS_TAG} file="`;
  const close = `</${INSTRUCTIONS_TAG}>`;
  for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
    const end = text.indexOf(close, at);
    if (end < 0) break;
    total += end + close.length - at;
    at = end;
  }
  return total;
}
