import type { CoreOptions } from '#runtime/core';

/** What a CLI command reads and writes: output streams, environment, folder, stdin and Ctrl-C. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  readStdin?: () => Promise<string>;
  /** stdin line by line, as it comes (--input-format stream-json); ends when stdin closes. */
  stdinLines?: () => AsyncIterable<string>;
  /** Registers a handler for Ctrl-C; returns a function that removes it. */
  onInterrupt?: (handler: () => void) => () => void;
  /** Extra core options (tests inject retry policies and tools). */
  coreOptions?: Partial<CoreOptions>;
}

/**
 * A command's arguments parsed, or the exit code of a usage error (2) after writing the parser's message
 * and the command's usage to stderr.
 */
export function parseArgsOr<T>(parse: () => T, usage: string, io: CliIo): T | 2 {
  try {
    return parse();
  } catch (error) {
    io.stderr(`deft: ${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
}
