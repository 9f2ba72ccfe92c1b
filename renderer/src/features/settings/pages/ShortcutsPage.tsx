import { ShortcutList } from '../../layout/ShortcutList';

/** Every keyboard shortcut, by where it works (the same list as the Ctrl+/ sheet). */
export function ShortcutsPage() {
  return <ShortcutList />;
}
