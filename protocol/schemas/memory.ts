import { z } from 'zod';

// Memory: the instruction files in effect (AGENTS.md, CLAUDE.md, what they import), the user's choices about other
// agents' user files, and adding a line to one (`#` at the start of a message).

/** One instruction file the model reads, as the Memory view lists it. */
export const InstructionFileInfo = z.object({
  /** Relative to the workspace, `~/…` in the home, else absolute. */
  display: z.string(),
  scope: z.enum(['user', 'project', 'nested']),
  importedBy: z.string().optional(),
  /** What the model reads of it (cut at the cap). */
  text: z.string(),
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type InstructionFileInfo = z.infer<typeof InstructionFileInfo>;

/** A file named (or imported) but not read, and why. */
export const InstructionProblemInfo = z.object({ display: z.string(), message: z.string() });
export type InstructionProblemInfo = z.infer<typeof InstructionProblemInfo>;

/** Read `~/.claude/CLAUDE.md` and `~/.codex/AGENTS.md` as user instruction files too. */
export const InstructionSettings = z.object({ claudeUser: z.boolean(), codexUser: z.boolean() });
export type InstructionSettings = z.infer<typeof InstructionSettings>;

/** Where `#` may add a line: the project's file at the workspace root, or the user's `~/.deft/AGENTS.md`. */
export const MemoryTarget = z.enum(['project', 'user']);
export type MemoryTarget = z.infer<typeof MemoryTarget>;

/** The instruction files in effect for a session (or for a new one), what was not read, the settings and where `#` writes. */
export const MemoryOverview = z.object({
  files: z.array(InstructionFileInfo),
  problems: z.array(InstructionProblemInfo),
  settings: InstructionSettings,
  targets: z.array(z.object({ target: MemoryTarget, display: z.string(), exists: z.boolean() })),
});
export type MemoryOverview = z.infer<typeof MemoryOverview>;

/** The memory commands, merged into the command table: built with it, on first use (commandSchemas). */
export function memoryCommands() {
  return {
    /** The instruction files in effect: those of a new session's system prompt, and the subfolders' ones this session has loaded. */
    listMemory: {
      input: z.object({ sessionId: z.string().min(1).optional() }).strict(),
      output: MemoryOverview,
    },
    /** Turn reading Claude Code's or Codex's user file on or off (applies to new sessions and after a compaction). */
    setInstructionSettings: {
      input: z.object({ claudeUser: z.boolean().optional(), codexUser: z.boolean().optional() }).strict(),
      output: MemoryOverview,
    },
    /** Add a line to an instruction file (`#` at the start of a message): the file is created when missing. */
    addMemoryLine: {
      input: z
        .object({
          target: MemoryTarget,
          text: z
            .string()
            .trim()
            .min(1)
            .max(2_000)
            .regex(/^[^\n\r]*$/, 'One line only.'),
        })
        .strict(),
      output: z.object({ display: z.string() }),
    },
  } as const;
}
