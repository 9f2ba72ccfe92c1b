import { type DeftBridge, createBridge } from '#protocol/helpers/bridge';
import type { HostView } from '#protocol';
import { createWebTransport, readView, webView } from './web-transport';

/** The desktop app's side of the switch (preload): the main process checks the name and says which core is shown. */
interface DeftViewBridge {
  switchTo(name: string | null): Promise<unknown>;
  onView(callback: (view: unknown) => void): () => void;
}

declare global {
  interface Window {
    deft?: DeftBridge;
    deftView?: DeftViewBridge;
  }
}

/** `window.deft` from Electron's preload, or the same object over the web host's WebSocket. */
export const deft: DeftBridge = window.deft ?? createBridge(createWebTransport());

interface HostViewApi {
  current(): HostView | null;
  /** `switched`: the view answers a switch (the page starts again from that core), not a reconnect. */
  subscribe(callback: (view: HostView, switched: boolean) => void): () => void;
  switchTo(name: string | null): void;
}

/** The desktop app's window: the main process keeps its cores (its folder's, one per worktree) and switches it by name. */
function electronView(bridge: DeftViewBridge): HostViewApi {
  let view: HostView | null = null;
  let switching = false;
  const listeners = new Set<(view: HostView, switched: boolean) => void>();
  bridge.onView((raw) => {
    const heard = readView(raw);
    if (!heard) return;
    const switched = switching || (view !== null && (view.worktree?.name ?? null) !== (heard.worktree?.name ?? null));
    switching = false;
    view = heard;
    listeners.forEach((l) => l(heard, switched));
  });
  return {
    current: () => view,
    subscribe(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
    switchTo(name) {
      switching = true;
      void bridge.switchTo(name);
    },
  };
}

/**
 * Which core this window shows: the web host serves a tab the main checkout's core or a worktree's (by name), and
 * switches it in place; so does the desktop app's main process for its window (one window, cores switched by name).
 */
export const hostView: HostViewApi = window.deft
  ? window.deftView
    ? electronView(window.deftView)
    : { current: () => null, subscribe: () => () => {}, switchTo: () => {} }
  : { ...webView, switchTo: (name) => webView.switchTo(name) };
