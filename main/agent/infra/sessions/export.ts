import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportFormat } from '#protocol';
import { logEvents } from './log-lines';
import { LOG_FILE, type SessionMeta } from './session';

/** The most an export returns to a window; larger logs are pointed to on disk instead. */
export const MAX_EXPORT_BYTES = 32 * 1024 * 1024;
/** Tool output kept per call in a Markdown export. */
const TOOL_OUTPUT_CHARS = 4_000;

/** A name to save an export under: the title's words, no path separators, dots or control characters. */
export function exportFileName(meta: Pick<SessionMeta, 'id' | 'title'>, format: ExportFormat): string {
  const words = meta.title
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  const id = meta.id.replace(/[^A-Za-z0-9_-]/g, '');
  return `${words ? `${words}-` : 'session-'}${id}.${format === 'markdown' ? 'md' : 'jsonl'}`;
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${(text.length - max).toLocaleString('en-US')} more characters)` : text;
}

/** The conversation as Markdown: prompts, answers and one short block per tool call. */
async function markdown(meta: SessionMeta, log: string): Promise<string> {
  const out: string[] = [`# ${meta.title.replace(/\n/g, ' ')}`, '', `Workspace: \`${meta.workspace}\` · started ${new Date(meta.createdAt).toISOString()}`, ''];
  let answer = '';
  let answerTurn = '';
  const flushAnswer = () => {
    if (answer.trim()) out.push('### Deft', '', answer.trim(), '');
    answer = '';
  };
  const tools = new Map<string, { name: string; description: string }>();
  for await (const event of logEvents(log)) {
    const e = event;
    switch (e.type) {
      case 'turn.started': {
        flushAnswer();
        out.push(`## ${e.origin === 'user' ? 'You' : `Prompt (${e.origin})`}`, '', e.text, '');
        for (const m of e.mentions ?? []) out.push(`- @${m.label}: \`${m.path}\``);
        for (const a of e.attachments) out.push(`- attached ${a.kind}: \`${a.path}\``);
        if (e.mentions?.length || e.attachments.length) out.push('');
        break;
      }
      case 'assistant.delta':
        if (answerTurn !== `${e.turnId}:${e.step}`) flushAnswer();
        answerTurn = `${e.turnId}:${e.step}`;
        answer += e.text;
        break;
      case 'tool.call.started':
        flushAnswer();
        tools.set(e.callId, { name: e.name, description: e.description });
        break;
      case 'tool.call.result': {
        const call = tools.get(e.callId);
        const title = call ? `${call.name}: ${call.description}` : e.name;
        out.push(`**${e.isError ? 'Failed' : 'Tool'}** — ${title.replace(/\n/g, ' ')}`, '');
        if (e.output.trim()) out.push(fence(cut(e.output, TOOL_OUTPUT_CHARS)), '');
        break;
      }
      case 'turn.ended':
        flushAnswer();
        if (e.error) out.push(`> Error: ${e.error.message.replace(/\n/g, ' ')}`, '');
        break;
      default:
        break;
    }
  }
  flushAnswer();
  return out.join('\n');
}

/** A session as a file: Markdown for reading, or the raw log exactly as on disk. */
export async function exportSession(
  dir: string,
  meta: SessionMeta,
  format: ExportFormat,
): Promise<{ fileName: string; mimeType: string; content: string; logPath: string }> {
  const logPath = join(dir, LOG_FILE);
  const size = (await stat(logPath).catch(() => null))?.size ?? 0;
  if (size > MAX_EXPORT_BYTES) {
    throw new Error(`This session's log is ${(size / 1024 / 1024).toFixed(0)} MiB, too large to export from the window. Copy it from ${logPath}.`);
  }
  const fileName = exportFileName(meta, format);
  if (format === 'jsonl') return { fileName, mimeType: 'application/x-ndjson', content: await readFile(logPath, 'utf8').catch(() => ''), logPath };
  return { fileName, mimeType: 'text/markdown', content: await markdown(meta, logPath), logPath };
}
