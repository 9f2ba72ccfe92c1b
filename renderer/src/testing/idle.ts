/**
 * An idle scheduler a test drives (for the window's idle-time warm-ups): each period reports the times left
 * it is given, one per check (the last one again after that).
 */
export function fakeIdle() {
  const waiting = new Map<number, (deadline: { timeRemaining(): number }) => void>();
  let next = 1;
  return {
    waiting,
    request(run: (deadline: { timeRemaining(): number }) => void) {
      waiting.set(next, run);
      return next++;
    },
    cancel(handle: number) {
      waiting.delete(handle);
    },
    /** Run the waiting callback with an idle period whose time left is read from `left`, in order. */
    period(left: number[]) {
      const [handle, run] = [...waiting][0]!;
      waiting.delete(handle);
      let i = 0;
      run({ timeRemaining: () => left[Math.min(i++, left.length - 1)]! });
    },
  };
}
