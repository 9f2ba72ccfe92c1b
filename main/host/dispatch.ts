import type { CommandName, CommandReply } from '#protocol';
import { commandSchemas, isCommandName } from '#protocol/schemas/commands';
import type { CommandHandlers } from '../agent/contract/commands';
import { CommandError } from '../agent/contract/errors';

function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * The one entry point for commands from any transport: the name must exist, the input must parse
 * against the protocol, and failures come back as `{ok: false, error}` — never as a thrown error.
 * `onOpen` hears the session a valid openSession names, before it runs: the window sending it shows that one now.
 */
export async function dispatchCommand(
  handlers: CommandHandlers,
  name: unknown,
  input: unknown,
  log: (message: string) => void = console.error,
  onOpen?: (sessionId: string) => void,
): Promise<CommandReply> {
  if (!isCommandName(name)) {
    return { ok: false, error: { code: 'invalid_request', message: `Unknown command ${JSON.stringify(name)}.` } };
  }
  const parsed = commandSchemas()[name].input.safeParse(input ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_request', message: `Invalid input for ${name}: ${describeIssues(parsed.error.issues)}` } };
  }
  if (name === 'openSession') onOpen?.((parsed.data as { sessionId: string }).sessionId);
  const handler = handlers[name] as ((input: unknown) => Promise<unknown>) | undefined;
  // A core built without a capability (a remote folder leaves some out) has no handler for its commands.
  if (typeof handler !== 'function') {
    return { ok: false, error: { code: 'unsupported', message: `${name} is not available for this workspace (its capability is not loaded).` } };
  }
  try {
    const result = await handler(parsed.data);
    return { ok: true, result } as CommandReply<CommandName>;
  } catch (error) {
    if (error instanceof CommandError) return { ok: false, error: { code: error.code, message: error.message } };
    log(`deft: command ${name} failed: ${(error as Error)?.stack ?? String(error)}`);
    return { ok: false, error: { code: 'internal', message: `${name} failed: ${(error as Error)?.message ?? String(error)}` } };
  }
}
