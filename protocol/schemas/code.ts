import { z } from 'zod';

/** One problem a language server reports in a file (1-based line and column). */
export const CodeProblem = z.object({
  line: z.number().int(),
  column: z.number().int(),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
  /** The server's code for it ("TS2322", "reportAssignmentType"). */
  code: z.string().optional(),
});
export type CodeProblem = z.infer<typeof CodeProblem>;

/** What the language server found wrong that a Write or Edit introduced: the first few, and how many more. */
export const CodeDiagnostics = z.object({
  server: z.string(),
  problems: z.array(CodeProblem).max(50),
  more: z.number().int().nonnegative(),
});
export type CodeDiagnostics = z.infer<typeof CodeDiagnostics>;

/** One place an LSP tool call found (a definition, a reference, a symbol), 1-based. */
export const CodeLocation = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  /** The symbol's name and kind ("function add"), or the line's text. */
  label: z.string().optional(),
});
export type CodeLocation = z.infer<typeof CodeLocation>;

/** A language server's answer, shown as a card (LSP tool). */
export const CodeResultDisplay = z.object({
  kind: z.literal('code_result'),
  operation: z.string(),
  /** What was asked ("src/a.ts:3:10", "symbol add"). */
  target: z.string(),
  server: z.string(),
  locations: z.array(CodeLocation).max(200).optional(),
  /** Hover text (plain). */
  text: z.string().optional(),
  problems: z
    .array(CodeProblem.extend({ path: z.string() }))
    .max(200)
    .optional(),
  total: z.number().int().optional(),
});

/** What a language server runs as, for Settings → Code intelligence. */
export const LspServerState = z.object({
  id: z.string(),
  languages: z.array(z.string()),
  source: z.enum(['builtin', 'user']),
  state: z.enum(['not-started', 'starting', 'running', 'stopped', 'restarting', 'off', 'disabled']),
  sandboxed: z.boolean().optional(),
  pid: z.number().int().optional(),
  lastError: z.string().optional(),
  crashes: z.number().int(),
});
export type LspServerState = z.infer<typeof LspServerState>;

/** Settings → Code intelligence: whether servers may run here, the servers, the settings' problems. */
export const LspStatus = z.object({
  enabled: z.boolean(),
  /** Servers start only in trusted folders. */
  trusted: z.boolean(),
  servers: z.array(LspServerState),
  /** Languages the user turned off. */
  disabledLanguages: z.array(z.string()),
  /** Why a user-configured server cannot be used; on a remote folder, what to install there for a language without one. */
  problems: z.array(z.string()),
  /** The remote machine the servers run on (`user@host`), for a folder opened over SSH; absent on this machine. */
  host: z.string().optional(),
});
export type LspStatus = z.infer<typeof LspStatus>;
