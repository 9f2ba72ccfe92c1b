// Plain lists of command and event names, free of zod so the renderer's web shim stays small.
// protocol.test.ts checks they match the schemas.

/** Every command name, as in `commands`. */
export const commandNames = [
  'getWorkspace',
  'pickWorkspace',
  'listSessions',
  'createSession',
  'openSession',
  'deleteSession',
  'sendPrompt',
  'cancelTurn',
  'getSettings',
  'setSettings',
  'listModels',
  // files: image attachments
  'saveAttachment',
  'attachmentPreview',
] as const;

/** Every event type, session and app events alike. */
export const eventTypeNames = [
  'session.updated',
  'turn.started',
  'turn.ended',
  'step.started',
  'step.retrying',
  'step.ended',
  'assistant.delta',
  'thinking.delta',
  'tool.call.started',
  'tool.call.progress',
  'tool.call.result',
  'usage',
  'error',
  'settings.updated',
  'session.deleted',
] as const;
