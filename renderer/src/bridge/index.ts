import { type DeftBridge, createBridge } from '#protocol/helpers/bridge';
import type { HostView } from '#protocol';
import { createWebTransport, webView } from './web-transport';

declare global {
  interface Window {
    deft?: DeftBridge;
  }
}

/** `window.deft` from Electron's preload, or the same object over the web host's WebSocket. */
export const deft: DeftBridge = window.deft ?? createBridge(createWebTransport());

/**
 * Which core this window shows: the web host serves a tab the main checkout's core or a worktree's (by name), and
 * switches it; the desktop app opens a worktree in a window of its own, so it never says and never switches here.
 */
export const hostView: {
  current(): HostView | null;
  /** `switched`: the view answers a switch (the page starts again from that core), not a reconnect. */
  subscribe(callback: (view: HostView, switched: boolean) => void): () => void;
  switchTo(name: string | null): void;
} = window.deft ? { current: () => null, subscribe: () => () => {}, switchTo: () => {} } : { ...webView, switchTo: (name) => webView.switchTo(name) };
