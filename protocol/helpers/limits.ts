// Plain values shared by the core and the renderer, free of zod so the renderer bundle stays small.

/** The largest image a user can attach to a prompt. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
