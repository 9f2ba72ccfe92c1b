import { contextBridge, ipcRenderer } from 'electron';
// A sandboxed preload can require only 'electron': import the zod-free parts of the protocol.
import {
  type BridgeTransport,
  IPC_COMMAND_CHANNEL,
  IPC_EVENT_CHANNEL,
  IPC_VIEW_CHANNEL,
  IPC_VIEW_EVENT_CHANNEL,
  createBridge,
} from '../protocol/helpers/bridge';
import type { CommandReply, DeftEvent } from '../protocol';

const transport: BridgeTransport = {
  invoke: (name, input) => ipcRenderer.invoke(IPC_COMMAND_CHANNEL, name, input) as Promise<CommandReply>,
  subscribe(callback) {
    const listener = (_event: unknown, payload: DeftEvent) => callback(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, listener);
    return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, listener);
  },
};

contextBridge.exposeInMainWorld('deft', createBridge(transport));

// Which core the window shows (its folder's, or a worktree's by name), and the switch: the main process checks the name.
contextBridge.exposeInMainWorld('deftView', {
  switchTo: (name: string | null) => ipcRenderer.invoke(IPC_VIEW_CHANNEL, name) as Promise<unknown>,
  onView(callback: (view: unknown) => void) {
    const listener = (_event: unknown, view: unknown) => callback(view);
    ipcRenderer.on(IPC_VIEW_EVENT_CHANNEL, listener);
    return () => ipcRenderer.removeListener(IPC_VIEW_EVENT_CHANNEL, listener);
  },
});
