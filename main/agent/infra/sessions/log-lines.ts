import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { SessionEvent } from '#protocol';
import type { LogRecord } from './records';

/**
 * The events of a session log, one at a time, read as a stream: a long session is never held in
 * memory whole. `filter` sees each raw line first, so lines that cannot matter are not parsed.
 * Lines that do not parse (a torn last write, damage) are skipped.
 */
export async function* logEvents(path: string, filter: (line: string) => boolean = () => true): AsyncGenerator<SessionEvent> {
  if (!(await stat(path).catch(() => null))?.isFile()) return;
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  // A read error ends the iteration (readline does not always pass it on).
  input.on('error', () => lines.close());
  try {
    for await (const line of lines) {
      if (!line || !filter(line)) continue;
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        continue;
      }
      if (record?.r === 'event' && record.e && typeof record.e === 'object' && typeof (record.e as { type?: unknown }).type === 'string') yield record.e;
    }
  } finally {
    lines.close();
  }
}
