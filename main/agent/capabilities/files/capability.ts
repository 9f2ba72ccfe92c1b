import { z } from 'zod';
import type { Capability, CapabilityFactory, SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';
import type { Tool } from '#contract/tool';
import { editTool } from './tools/edit/edit';
import { globTool } from './tools/glob/glob';
import { grepTool } from './tools/grep/grep';
import { readMediaFileTool } from './tools/read-media-file/read-media-file';
import { readTool } from './tools/read/read';
import { writeTool } from './tools/write/write';
import { attachmentPreview, saveAttachment } from './attachments';
import { FileTracker } from './file-state';
import { FileIndex } from './file-index';
import { CommandError } from '#contract/errors';
import { openableInEditor, readForViewer } from './workspace-file';

/** The stale guard's record, kept with the session; FileTracker.restore checks each entry. */
const seenSlot = stateSlot('files.seen', z.record(z.string(), z.unknown()), {});

/**
 * The file tools (Read, Write, Edit, Grep, Glob, ReadMediaFile) and what they remember per session:
 * the stale guard's record of which files the agent has read or written, kept with the session.
 * Also the commands that save and preview files attached to a prompt, the @-mention picker's file
 * index, and the read-only file viewer.
 */
export const filesCapability: CapabilityFactory = (core) => {
  const trackers = new Map<string, FileTracker>();
  // The @-mention picker's index: a window will ask for it soon, so it is built in the background from the start.
  const index = new FileIndex(core.environment, core.workspace, () => core.now());
  if (core.host.hasWindow) void index.refresh();
  const trackerFor = (session: SessionHandle) => {
    let tracker = trackers.get(session.id);
    if (!tracker) {
      tracker = new FileTracker(() => core.now());
      tracker.restore(session.state(seenSlot).get());
      trackers.set(session.id, tracker);
    }
    return tracker;
  };
  const capability: Capability = {
    name: 'files',
    tools(session, env) {
      const files = trackerFor(session);
      // ReadMediaFile only for a model that reads images (the setting, or what the server's model list says).
      const imageInput = env.capabilities.imageInput;
      return [
        readTool(files, { imageInput }),
        writeTool(files),
        editTool(files),
        grepTool(),
        globTool(),
        ...(imageInput ? [readMediaFileTool()] : []),
      ] as Tool[];
    },
    onSessionLoaded(session) {
      trackerFor(session);
    },
    onTurnEnded(session) {
      const tracker = trackers.get(session.id);
      if (tracker?.dirty) session.state(seenSlot).set(tracker.snapshot());
    },
    // The record is kept with the session; loaded again, the tracker is restored from it.
    onSessionUnloaded(session) {
      const tracker = trackers.get(session.id);
      if (tracker?.dirty) session.state(seenSlot).set(tracker.snapshot());
      trackers.delete(session.id);
    },
    commands: {
      saveAttachment: async ({ sessionId, name, data }) => ({ attachment: await saveAttachment((await core.session(sessionId)).dir, name, data) }),
      attachmentPreview: async ({ sessionId, path }) => attachmentPreview((await core.session(sessionId)).dir, path),
      searchFiles: async ({ query, limit }) => index.search(query, limit),
      readWorkspaceFile: async ({ path }) => readForViewer(core.environment, path, core.workspace, core.openFile !== undefined),
      openInEditor: async ({ path }) => {
        if (!core.openFile) throw new CommandError('unsupported', 'Opening files in the system editor is only available in the desktop app.');
        const full = await openableInEditor(core.environment, path, core.workspace);
        return { opened: await core.openFile(full), path: full };
      },
    },
    close: async () => index.close(),
  };
  return capability;
};
