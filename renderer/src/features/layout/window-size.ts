import { useEffect, useState } from 'react';
import { useTasks } from '../../stores/tasks';
import { useUi } from '../../stores/ui';

/** Below this width the sidebar is a drawer opened from the menu button. */
export const DRAWER_BELOW = 1000;
/** Below this width an open tasks panel takes the sidebar's room. */
const TASKS_TAKE_SIDEBAR_BELOW = 1100;

function useWindowWidth(): number {
  const [width, setWidth] = useState(() => window.innerWidth);
  useEffect(() => {
    const onResize = () => setWidth(window.innerWidth);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return width;
}

/** How the sidebar shows at this window size: docked beside the conversation, as a drawer, or hidden. */
export type SidebarPlacement = 'docked' | 'drawer' | 'hidden';

export function useSidebarPlacement(): SidebarPlacement {
  const width = useWindowWidth();
  const collapsed = useUi((s) => s.sidebarCollapsed);
  const drawerOpen = useUi((s) => s.drawerOpen);
  const tasksOpen = useTasks((s) => s.panelOpen);
  const roomy = width >= DRAWER_BELOW && !collapsed && !(tasksOpen && width < TASKS_TAKE_SIDEBAR_BELOW);
  if (roomy) return 'docked';
  return drawerOpen ? 'drawer' : 'hidden';
}

/** Ctrl+B and the menu button: hide or show the docked sidebar on a wide window, open or close the drawer on a narrow one. */
export function toggleSidebar(): void {
  const ui = useUi.getState();
  if (window.innerWidth >= DRAWER_BELOW && !(useTasks.getState().panelOpen && window.innerWidth < TASKS_TAKE_SIDEBAR_BELOW)) {
    ui.setDrawerOpen(false);
    ui.setSidebarCollapsed(!ui.sidebarCollapsed);
  } else ui.setDrawerOpen(!ui.drawerOpen);
}
