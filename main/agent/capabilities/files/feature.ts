import { z } from 'zod';
import type { Feature, FeatureFactory, SessionHandle } from '../../contract/feature';
import { stateSlot } from '../../contract/state';
import type { Tool } from '../../contract/tool';
import { editTool } from './tools/edit/edit';
import { globTool } from './tools/glob/glob';
import { grepTool } from './tools/grep/grep';
import { readMediaFileTool } from './tools/read-media-file/read-media-file';
import { readTool } from './tools/read/read';
import { writeTool } from './tools/write/write';
import { attachmentPreview, saveAttachment } from './attachments';
import { FileTracker } from './file-state';

/** The stale guard's record, kept with the session; FileTracker.restore checks each entry. */
const seenSlot = stateSlot('files.seen', z.record(z.string(), z.unknown()), {});

/**
 * The file tools (Read, Write, Edit, Grep, Glob, ReadMediaFile) and what they remember per session:
 * the stale guard's record of which files the agent has read or written, kept with the session.
 * Also the commands that save and preview images attached to a prompt.
 */
export const filesFeature: FeatureFactory = (core) => {
  const trackers = new Map<string, FileTracker>();
  const trackerFor = (session: SessionHandle) => {
    let tracker = trackers.get(session.id);
    if (!tracker) {
      tracker = new FileTracker(() => core.now());
      tracker.restore(session.state(seenSlot).get());
      trackers.set(session.id, tracker);
    }
    return tracker;
  };
  const feature: Feature = {
    name: 'files',
    tools(session, env) {
      const files = trackerFor(session);
      // ReadMediaFile only for a model that reads images (the setting, or what the server's model list says).
      const imageInput = env.capabilities.imageInput;
      return [readTool(files, { imageInput }), writeTool(files), editTool(files), grepTool(), globTool(), ...(imageInput ? [readMediaFileTool()] : [])] as Tool[];
    },
    onSessionLoaded(session) {
      trackerFor(session);
    },
    onTurnEnded(session) {
      const tracker = trackers.get(session.id);
      if (tracker?.dirty) session.state(seenSlot).set(tracker.snapshot());
    },
    commands: {
      saveAttachment: async ({ sessionId, name, data }) => ({ attachment: await saveAttachment((await core.session(sessionId)).dir, name, data) }),
      attachmentPreview: async ({ sessionId, path }) => attachmentPreview((await core.session(sessionId)).dir, path),
    },
  };
  return feature;
};
