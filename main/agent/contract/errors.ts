import type { ErrorCode } from '#protocol';

/** A command failure the UI shows as is. */
export class CommandError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}
