import { readFile, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockChunk } from '#test-support/mock-model-server';
import { defaultCapabilities } from '../../capabilities';
import { DeftCore } from '#runtime/core';
import { createHarness, fastRetry } from '#test-support/harness';
import { cliHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const call = (name: string, args: unknown, id: string): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args), pieces: 3 } });
/** Script the model: each step is a list of tool calls; then a final answer. */
function script(...steps: MockChunk[][]) {
  for (const step of steps) h.server.enqueue({ chunks: [...step, { finish: 'tool_calls' }] });
  h.server.enqueue({ chunks: [{ text: 'Done.' }, { finish: 'stop' }] });
}
/** The tool messages the model received in request `n` (0-based), by call id. */
function toolMessages(n: number): Record<string, unknown> {
  const messages = h.server.requests[n]!.body.messages.filter((m) => m.role === 'tool');
  return Object.fromEntries(messages.map((m) => [m.tool_call_id!, m.content]));
}

describe('the files capability, driven by a model', () => {
  it('offers the six file tools to a model that reads images, and five to one that does not', async () => {
    h = await createHarness();
    const fileTools = (n: number) =>
      h.server.requests[n]!.body.tools!.map((t) => t.function.name).filter((name) => ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'ReadMediaFile'].includes(name));
    script();
    await h.run('hi');
    expect(fileTools(0)).toEqual(['Read', 'Write', 'Edit', 'Grep', 'Glob']);
    await h.core.handlers.setSettings({ provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'mock-model', apiKey: 'test-key', imageInput: true } });
    script();
    await h.run('again');
    expect(fileTools(1)).toEqual(['Read', 'Write', 'Edit', 'Grep', 'Glob', 'ReadMediaFile']);
  });

  it('reads, then edits in the same step (the earlier Read counts), and the model gets each result', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, 'app.ts'), 'export const greeting = "hello";\n');
    script([call('Read', { path: 'app.ts' }, 'r1'), call('Edit', { path: 'app.ts', old_string: '"hello"', new_string: '"hi"' }, 'e1')]);
    await h.run('Make the greeting shorter');
    const got = toolMessages(1);
    expect(got.r1).toBe(
      '1\texport const greeting = "hello";\n<system>1 lines read from file starting from line 1. Total lines in file: 1. End of file reached.</system>',
    );
    expect(got.e1).toBe('Replaced 1 occurrence in app.ts (first at line 1).');
    expect(await readFile(join(h.workspace, 'app.ts'), 'utf8')).toBe('export const greeting = "hi";\n');
    const started = h.sessionEvents('tool.call.started').find((e) => e.type === 'tool.call.started' && e.callId === 'e1');
    expect(started).toMatchObject({
      display: { kind: 'diff', path: 'app.ts', hunks: [{ lines: ['-export const greeting = "hello";', '+export const greeting = "hi";'] }] },
    });
    const result = h.sessionEvents('tool.call.result').find((e) => e.type === 'tool.call.result' && e.callId === 'e1');
    expect(result).toMatchObject({ isError: false, display: { kind: 'diff', added: 1, removed: 1 } });
  });

  it('refuses an edit of an unread file, and one changed on disk, with messages the model can act on', async () => {
    h = await createHarness();
    const path = join(h.workspace, 'notes.md');
    await writeFile(path, 'draft\n');
    script([call('Edit', { path: 'notes.md', old_string: 'draft', new_string: 'final' }, 'e1')], [call('Read', { path: 'notes.md' }, 'r1')]);
    await h.run('Finish the notes');
    expect(toolMessages(1).e1).toMatch(/^ERROR: notes\.md has not been read in this session yet\. Read it first/);
    await writeFile(path, 'draft, edited by hand\n');
    await utimes(path, new Date(), new Date(Date.now() + 10_000));
    script([call('Edit', { path: 'notes.md', old_string: 'draft', new_string: 'final' }, 'e2')]);
    await h.run('Now finish it');
    expect(toolMessages(h.server.requests.length - 1).e2).toMatch(/^ERROR: notes\.md was modified on disk since you last read or wrote it/);
    expect(await readFile(path, 'utf8')).toBe('draft, edited by hand\n');
  });

  it('remembers what the session read across a restart of the core', async () => {
    h = await createHarness();
    const path = join(h.workspace, 'keep.txt');
    await writeFile(path, 'v1\n');
    script([call('Read', { path: 'keep.txt' }, 'r1')]);
    await h.run('read it');
    await h.core.close();
    const { FileSecretStore } = await import('#infra/settings/secrets');
    const again = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: FileSecretStore.inHome(h.home),
      retry: fastRetry,
      capabilities: defaultCapabilities,
    });
    script([call('Edit', { path: 'keep.txt', old_string: 'v1', new_string: 'v2' }, 'e1')]);
    await again.handlers.sendPrompt({ sessionId: h.session.id, text: 'edit it' });
    await again.turnDone(h.session.id);
    await again.close();
    expect(await readFile(path, 'utf8')).toBe('v2\n');
  });

  it('searches with Grep and Glob', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, 'a.ts'), 'const needle = 1;\n');
    await writeFile(join(h.workspace, 'b.md'), 'no match\n');
    script([call('Grep', { pattern: 'needle', output_mode: 'content' }, 'g1'), call('Glob', { pattern: '*.md' }, 'g2')]);
    await h.run('find it');
    const got = toolMessages(1);
    expect(got.g1).toBe('Found 1 matching line in 1 file.\na.ts:1:const needle = 1;');
    expect(got.g2).toBe('b.md');
  });

  it('sends an image the model opens with ReadMediaFile as an image_url part', async () => {
    h = await createHarness();
    await h.core.handlers.setSettings({ provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'mock-model', imageInput: true } });
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    await writeFile(join(h.workspace, 'shot.png'), png);
    script([call('ReadMediaFile', { path: 'shot.png' }, 'm1')]);
    await h.run('what is in shot.png?');
    const messages = h.server.requests[1]!.body.messages;
    const toolIndex = messages.findIndex((m) => m.role === 'tool');
    expect(messages[toolIndex]!.content).toMatch(/^<image path="shot\.png">\n<\/image>\n<system>Image shot\.png: PNG/);
    expect(messages[toolIndex + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by the tool calls above:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
      ],
    });
  });

  it('saves a dropped image under the session, lists it in the prompt, and the model opens it with ReadMediaFile', async () => {
    h = await createHarness();
    await h.core.handlers.setSettings({ provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'mock-model', imageInput: true } });
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc3366' } })
      .jpeg()
      .toBuffer();
    const { attachment } = await h.core.handlers.saveAttachment({ sessionId: h.session.id, name: 'Screen Shot 1.jpg', data: jpeg.toString('base64') });
    expect(attachment).toMatchObject({ kind: 'image', name: 'Screen_Shot_1.jpg', mimeType: 'image/jpeg' });
    expect(attachment.path.startsWith(join(h.home, 'sessions'))).toBe(true);
    expect(await readFile(attachment.path)).toEqual(jpeg);
    script([call('ReadMediaFile', { path: attachment.path }, 'm1')]);
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'What is this?', attachments: [attachment] });
    await h.core.turnDone(h.session.id);
    expect(h.server.requests[0]!.body.messages.at(-1)!.content).toBe(
      `What is this?\n\nAttached files (open images with ReadMediaFile):\n- Screen_Shot_1.jpg: ${attachment.path}`,
    );
    const followUp = h.server.requests[1]!.body.messages.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
    expect(followUp[1]!.image_url!.url).toBe(`data:image/jpeg;base64,${jpeg.toString('base64')}`);
    const preview = await h.core.handlers.attachmentPreview({ sessionId: h.session.id, path: attachment.path });
    expect(preview).toMatchObject({ width: 64, height: 48 });
    expect(preview.dataUrl).toMatch(/^data:image\/webp;base64,/);
  });

  it('keeps other files as files, and refuses images the model cannot see, bad data, or previews of other files', async () => {
    h = await createHarness();
    const save = (name: string, data: string) => h.core.handlers.saveAttachment({ sessionId: h.session.id, name, data });
    const notes = await save('notes.txt', Buffer.from('hello').toString('base64'));
    expect(notes.attachment).toMatchObject({ kind: 'file', name: 'notes.txt' });
    expect(await readFile(notes.attachment.path, 'utf8')).toBe('hello');
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer();
    await expect(save('scan.tiff', tiff.toString('base64'))).rejects.toThrow(/TIFF image; only PNG, JPEG, GIF and WebP/);
    await expect(save('x.png', 'not base64!')).rejects.toThrow('The attachment data is not valid base64.');
    // Paths outside the attachments folder are refused alike whether they exist or not (no probing the disk).
    await expect(h.core.handlers.attachmentPreview({ sessionId: h.session.id, path: join(h.workspace, 'x.png') })).rejects.toThrow(
      'Only images attached to this session can be previewed.',
    );
    await writeFile(
      join(h.workspace, 'real.png'),
      await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
        .png()
        .toBuffer(),
    );
    await expect(h.core.handlers.attachmentPreview({ sessionId: h.session.id, path: join(h.workspace, 'real.png') })).rejects.toThrow(
      'Only images attached to this session can be previewed.',
    );
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const { attachment } = await save('a.png', png.toString('base64'));
    const dir = dirname(attachment.path);
    for (const path of [join(dir, '..', 'missing.png'), join(dir, '../../../../no/such/file.png'), 'relative.png']) {
      await expect(h.core.handlers.attachmentPreview({ sessionId: h.session.id, path })).rejects.toThrow(
        'Only images attached to this session can be previewed.',
      );
    }
    await expect(h.core.handlers.attachmentPreview({ sessionId: h.session.id, path: join(dir, 'gone.png') })).rejects.toThrow(
      'That attachment no longer exists.',
    );
  });
});
