import { type DeftBridge, createBridge } from '#protocol/helpers/bridge';
import { createWebTransport } from './web-transport';

declare global {
  interface Window {
    deft?: DeftBridge;
  }
}

/** `window.deft` from Electron's preload, or the same object over the web host's WebSocket. */
export const deft: DeftBridge = window.deft ?? createBridge(createWebTransport());
