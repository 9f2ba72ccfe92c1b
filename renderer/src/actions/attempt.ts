import { DeftError } from '#protocol/helpers/bridge';
import { useUi } from '../stores/ui';

/** Show a failed command in the banner, in words for the user. */
export function report(error: unknown): void {
  const e = DeftError.from(error);
  useUi.getState().showBanner({ message: e.detail, code: e.code });
}

/** Run a command; when it fails, the banner says why and `fallback` is returned instead. */
export function attempt<T>(run: () => Promise<T>): Promise<T | undefined>;
export function attempt<T, F>(run: () => Promise<T>, fallback: F): Promise<T | F>;
export async function attempt<T, F>(run: () => Promise<T>, fallback?: F): Promise<T | F | undefined> {
  try {
    return await run();
  } catch (error) {
    report(error);
    return fallback;
  }
}
