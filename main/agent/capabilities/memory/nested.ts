import { z } from 'zod';
import { type Fact, reminder } from '#contract/facts';
import { stateSlot } from '#contract/state';
import { displayPath } from '#infra/instructions/display';
import { InstructionReader, type InstructionContext } from '#infra/instructions/load';
import { nestedCandidates } from '#infra/instructions/locations';
import { nestedAnnouncement } from '#infra/instructions/render';
import type { InstructionFile, InstructionProblem } from '#infra/instructions/types';

/** The subfolders (real paths, in the order first touched) whose instruction files this session has loaded. */
export const nestedFoldersSlot = stateSlot('memory.nested', z.array(z.string()), [] as string[]);

export interface NestedFolder {
  folder: string;
  files: InstructionFile[];
  problems: InstructionProblem[];
}

/**
 * Each touched subfolder's instruction files, read afresh (an edit is announced again), none repeated: a file the
 * system prompt holds, or an earlier folder announced, is left out.
 */
export async function readNested(
  context: InstructionContext & { userHome: string },
  folders: readonly string[],
  rootRead: ReadonlySet<string>,
): Promise<NestedFolder[]> {
  const seen = new Set(rootRead);
  const out: NestedFolder[] = [];
  for (const folder of folders) {
    const reader = new InstructionReader(context, seen);
    const set = await reader.read(nestedCandidates(folder));
    out.push({ folder: displayPath(folder, context.workspace, context.userHome), files: set.files, problems: set.problems });
  }
  return out;
}

/** One fact per folder: said when first touched, again when its files change, and after a compaction. */
export function nestedFacts(folders: readonly NestedFolder[]): Fact[] {
  return folders.map((f) => ({ key: `instructions:${f.folder}`, text: f.files.length ? reminder(nestedAnnouncement(f.folder, f.files)) : null }));
}
