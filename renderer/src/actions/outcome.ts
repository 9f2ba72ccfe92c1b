import { DeftError } from '#protocol/helpers/bridge';

/** A command's result, or the reason it was refused (for the dialog that asked). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** Run a command, turning a refusal into the reason a dialog shows rather than a thrown error. */
export async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: DeftError.from(error).detail };
  }
}
