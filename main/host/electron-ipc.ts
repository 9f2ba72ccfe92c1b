import { type IpcMainInvokeEvent, type WebContents, ipcMain } from 'electron';
import type { CommandReply, DeftEvent, HostView } from '#protocol';
import { IPC_COMMAND_CHANNEL, IPC_EVENT_CHANNEL, IPC_VIEW_CHANNEL, IPC_VIEW_EVENT_CHANNEL } from '#protocol/helpers/bridge';
import type { DeftCore } from '../agent/runtime/core';
import { dispatchCommand } from './dispatch';

/**
 * One IPC handler for all windows. A message is served only when it comes from the top frame of a
 * window we created, showing our own renderer; its input is validated against the protocol.
 */
export function registerIpc(
  coreFor: (contents: WebContents) => DeftCore | undefined,
  isOurUrl: (url: string) => boolean,
  /** Show another core in that window (a worktree by name — zod-checked there, CoreViews — or null: its folder's). */
  switchView?: (contents: WebContents, name: unknown) => Promise<HostView> | undefined,
): void {
  const trusted = (event: IpcMainInvokeEvent) => {
    const frame = event.senderFrame;
    return Boolean(frame && frame === event.sender.mainFrame && isOurUrl(frame.url));
  };
  ipcMain.handle(IPC_VIEW_CHANNEL, async (event: IpcMainInvokeEvent, name: unknown): Promise<HostView | { refused: string }> => {
    const switched = trusted(event) ? switchView?.(event.sender, name) : undefined;
    return switched ? await switched : { refused: 'Refused: this frame may not talk to Deft.' };
  });
  ipcMain.handle(IPC_COMMAND_CHANNEL, async (event: IpcMainInvokeEvent, name: unknown, input: unknown): Promise<CommandReply> => {
    const core = coreFor(event.sender);
    if (!core || !trusted(event)) {
      return { ok: false, error: { code: 'invalid_request', message: 'Refused: this frame may not talk to Deft.' } };
    }
    // Each window has a core of its own (closed with the window), showing the session it opened last.
    return dispatchCommand(core.handlers, name, input, console.error, (sessionId) => core.show(`window-${event.sender.id}`, sessionId));
  });
}

/** Tell a window which core it shows now (before that core's events). */
export function sendView(contents: WebContents, view: HostView): void {
  if (!contents.isDestroyed()) contents.send(IPC_VIEW_EVENT_CHANNEL, view);
}

/** Send one event to a window. */
export function sendEvent(contents: WebContents, event: DeftEvent): void {
  if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event);
}

/** Forward a core's events to its window. */
export function forwardEvents(core: DeftCore, contents: WebContents): () => void {
  return core.onEvent((event: DeftEvent) => {
    if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, event);
  });
}
