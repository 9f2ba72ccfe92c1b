import { contextBridge, ipcRenderer } from 'electron';
import { type BridgeTransport, type CommandReply, type DeftEvent, IPC_COMMAND_CHANNEL, IPC_EVENT_CHANNEL, createBridge, eventTypes } from '../protocol';

const transport: BridgeTransport = {
  invoke: (name, input) => ipcRenderer.invoke(IPC_COMMAND_CHANNEL, name, input) as Promise<CommandReply>,
  subscribe(callback) {
    const listener = (_event: unknown, payload: DeftEvent) => callback(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, listener);
    return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, listener);
  },
};

contextBridge.exposeInMainWorld('deft', createBridge(transport, eventTypes));
