import { type IpcMainInvokeEvent, type WebContents, ipcMain } from 'electron';
import type { CommandReply, DeftEvent } from '#protocol';
import { IPC_COMMAND_CHANNEL, IPC_EVENT_CHANNEL } from '#protocol/helpers/bridge';
import type { DeftCore } from '../agent/runtime/core';
import { dispatchCommand } from './dispatch';

/**
 * One IPC handler for all windows. A message is served only when it comes from the top frame of a
 * window we created, showing our own renderer; its input is validated against the protocol.
 */
export function registerIpc(coreFor: (contents: WebContents) => DeftCore | undefined, isOurUrl: (url: string) => boolean): void {
  ipcMain.handle(IPC_COMMAND_CHANNEL, async (event: IpcMainInvokeEvent, name: unknown, input: unknown): Promise<CommandReply> => {
    const frame = event.senderFrame;
    const core = coreFor(event.sender);
    if (!core || !frame || frame !== event.sender.mainFrame || !isOurUrl(frame.url)) {
      return { ok: false, error: { code: 'invalid_request', message: 'Refused: this frame may not talk to Deft.' } };
    }
    // Each window has a core of its own (closed with the window), showing the session it opened last.
    return dispatchCommand(core.handlers, name, input, console.error, (sessionId) => core.show(`window-${event.sender.id}`, sessionId));
  });
}

/** Forward a core's events to its window. */
export function forwardEvents(core: DeftCore, contents: WebContents): () => void {
  return core.onEvent((event: DeftEvent) => {
    if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event);
  });
}
