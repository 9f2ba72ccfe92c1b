import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Save a tool result too long for the model in full under the session's folder; returns the file's path. */
export async function saveToolOutput(sessionDir: string, toolName: string, callId: string, output: string): Promise<string> {
  const dir = join(sessionDir, 'tool-results');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Both names can come from the model (an unknown tool's error echoes its name): keep them one short, plain file name.
  const plain = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  const path = join(dir, `${plain(toolName)}-${plain(callId)}.txt`);
  await writeFile(path, output, { mode: 0o600 });
  return path;
}
