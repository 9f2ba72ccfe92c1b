import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * A list of changed files with one selected: J and K move the selection (and focus) to the next or previous file,
 * except while typing. `keepOrFirst` after a reload keeps the selected file when it is still listed, else the first.
 * The list element (`list`) holds buttons marked with `data-path`.
 */
export function useFileSteps<F extends { path: string }>(files: readonly F[], initial: string | null = null) {
  const [selected, setSelected] = useState<string | null>(initial);
  const list = useRef<HTMLUListElement>(null);
  const index = files.findIndex((f) => f.path === selected);
  const file = index >= 0 ? files[index]! : null;

  const move = useCallback(
    (by: number) => {
      if (!files.length) return;
      const next = files[Math.min(files.length - 1, Math.max(0, (index < 0 ? 0 : index) + by))]!;
      setSelected(next.path);
      list.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(next.path)}"]`)?.focus();
    },
    [files, index],
  );
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select') || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'j') move(1);
      else if (e.key === 'k') move(-1);
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [move]);

  const keepOrFirst = useCallback((next: readonly F[]) => {
    setSelected((current) => (current && next.some((f) => f.path === current) ? current : (next[0]?.path ?? null)));
  }, []);

  return { selected, setSelected, index, file, list, keepOrFirst };
}
