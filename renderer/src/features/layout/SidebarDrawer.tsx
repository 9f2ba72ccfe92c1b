import { useEffect, useRef } from 'react';
import { useSessions } from '../../stores/sessions';
import { useUi } from '../../stores/ui';
import { Sidebar } from '../sessions/Sidebar';

const closeDrawer = () => useUi.getState().setDrawerOpen(false);

/**
 * The sidebar over the conversation on a narrow window: opened from the menu button (or Ctrl+B), closed
 * by Escape, a click beside it, or opening a session. Focus moves in on open and back to the menu button on close.
 */
export function SidebarDrawer() {
  const ref = useRef<HTMLDivElement>(null);
  const currentId = useSessions((s) => s.currentId);
  const opened = useRef(currentId);
  useEffect(() => {
    // Another session was opened from the drawer: the user is done with it. Only once one is shown: *New session*
    // first leaves the current one (none shown) and shows the new one when it exists; closing on the first step
    // would let that second one close a drawer opened again meanwhile.
    if (currentId !== null && currentId !== opened.current) closeDrawer();
  }, [currentId]);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('button')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('[role="dialog"][aria-modal="true"]')) {
        e.preventDefault();
        closeDrawer();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      const menu = document.querySelector<HTMLElement>('.menu-button');
      (menu ?? (previous?.isConnected ? previous : null))?.focus();
    };
  }, []);
  return (
    <div className="drawer-layer">
      <div className="drawer-backdrop" aria-hidden="true" onMouseDown={closeDrawer} />
      <div className="drawer" ref={ref}>
        <Sidebar />
      </div>
    </div>
  );
}
