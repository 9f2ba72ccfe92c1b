import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ModelMessage } from '#contract/model';
import { isMessage } from './log-scan';
import type { LogRecord } from './records';
import type { LogReadBack, LoggedMessage } from './timeline';

/**
 * Reading back the messages a timeline left in a log file (see Timeline): each must still be the context
 * record it was when the log was read, the same role and tool calls; one that is not (the file changed under
 * the session) is replaced by a message saying so, which keeps every tool call paired with a result.
 */
export function logReadBack(path: string): LogReadBack {
  return {
    now(logged) {
      let fd: number | null = null;
      try {
        fd = openSync(path, 'r');
      } catch {
        return logged.map(unreadable);
      }
      try {
        return logged.map((entry) => {
          const buffer = Buffer.allocUnsafe(entry.end - entry.start);
          const read = readSync(fd, buffer, 0, buffer.length, entry.start);
          return messageOf(buffer.subarray(0, read), entry);
        });
      } finally {
        closeSync(fd);
      }
    },
    async later(logged) {
      const handle = await open(path, 'r').catch(() => null);
      if (!handle) return logged.map(unreadable);
      try {
        const out: ModelMessage[] = [];
        for (const entry of logged) {
          const buffer = Buffer.allocUnsafe(entry.end - entry.start);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, entry.start);
          out.push(messageOf(buffer.subarray(0, bytesRead), entry));
        }
        return out;
      } finally {
        await handle.close();
      }
    },
  };
}

function messageOf(bytes: Buffer, entry: LoggedMessage): ModelMessage {
  let record: LogRecord;
  try {
    record = JSON.parse(bytes.toString('utf8')) as LogRecord;
  } catch {
    return unreadable(entry);
  }
  if (record?.r !== 'context' || !isMessage(record.m) || record.m.role !== entry.role) return unreadable(entry);
  const m = record.m;
  if (m.role === 'tool' && m.toolCallId !== entry.toolCallId) return unreadable(entry);
  if (m.role === 'assistant' && (m.toolCalls ?? []).map((c) => c.id).join('\n') !== (entry.toolCalls ?? []).map((c) => c.id).join('\n'))
    return unreadable(entry);
  return m;
}

const UNREADABLE = 'This message could not be read back from the session log: the file changed after it was read.';

function unreadable(entry: LoggedMessage): ModelMessage {
  switch (entry.role) {
    case 'tool':
      return { role: 'tool', toolCallId: entry.toolCallId ?? '', toolName: entry.toolName ?? '', content: UNREADABLE, isError: true };
    case 'assistant':
      return { role: 'assistant', content: UNREADABLE, ...(entry.toolCalls ? { toolCalls: entry.toolCalls.map((c) => ({ ...c, arguments: '{}' })) } : {}) };
    default:
      return { role: 'user', content: UNREADABLE };
  }
}
