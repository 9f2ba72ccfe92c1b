import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/**
 * The schemas of this file, built on first use (codeSchemas): only the command table and the event and display
 * schemas validate against them, and a run that validates none (the CLI's text turn) never builds them.
 */
const buildCodeSchemas = () => {
  /** One problem a language server reports in a file (1-based line and column). */
  const CodeProblem = z.object({
    line: z.number().int(),
    column: z.number().int(),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    /** The server's code for it ("TS2322", "reportAssignmentType"). */
    code: z.string().optional(),
  });

  /** What the language server found wrong that a Write or Edit introduced: the first few, and how many more. */
  const CodeDiagnostics = z.object({
    server: z.string(),
    problems: z.array(CodeProblem).max(50),
    more: z.number().int().nonnegative(),
  });

  /** One place an LSP tool call found (a definition, a reference, a symbol), 1-based. */
  const CodeLocation = z.object({
    path: z.string(),
    line: z.number().int(),
    column: z.number().int(),
    /** The symbol's name and kind ("function add"), or the line's text. */
    label: z.string().optional(),
  });

  /** A language server's answer, shown as a card (LSP tool). */
  const CodeResultDisplay = z.object({
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
  const LspServerState = z.object({
    id: z.string(),
    languages: z.array(z.string()),
    source: z.enum(['builtin', 'user']),
    state: z.enum(['not-started', 'starting', 'running', 'stopped', 'restarting', 'off', 'disabled']),
    sandboxed: z.boolean().optional(),
    pid: z.number().int().optional(),
    lastError: z.string().optional(),
    crashes: z.number().int(),
  });

  /** Settings → Code intelligence: whether servers may run here, the servers, the settings' problems. */
  const LspStatus = z.object({
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
  return { CodeProblem, CodeDiagnostics, CodeLocation, CodeResultDisplay, LspServerState, LspStatus };
};
export type CodeSchemas = ReturnType<typeof buildCodeSchemas>;
export const codeSchemas: () => CodeSchemas = builtOnce(buildCodeSchemas);

// The types of the schemas above (each documented at its schema).
export type CodeProblem = z.infer<CodeSchemas['CodeProblem']>;
export type CodeDiagnostics = z.infer<CodeSchemas['CodeDiagnostics']>;
export type CodeLocation = z.infer<CodeSchemas['CodeLocation']>;
export type LspServerState = z.infer<CodeSchemas['LspServerState']>;
export type LspStatus = z.infer<CodeSchemas['LspStatus']>;
