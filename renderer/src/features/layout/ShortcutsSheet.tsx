import { Dialog } from '../../components/Dialog';
import { useUi } from '../../stores/ui';
import { ShortcutList } from './ShortcutList';

/** Every shortcut on one sheet (Ctrl+/). */
export function ShortcutsSheet() {
  const close = () => useUi.getState().setShortcutsOpen(false);
  return (
    <Dialog title="Keyboard shortcuts" onClose={close}>
      <ShortcutList />
    </Dialog>
  );
}
