import { join } from 'node:path';

/** Files attached to prompts (images, dropped files) live in the session's folder, so they go when the session is deleted. */
export const attachmentsDir = (sessionDir: string) => join(sessionDir, 'attachments');
