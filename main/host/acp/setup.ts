import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { settingsSchemas } from '#protocol/schemas/settings';
import { providerSettings } from './auth';
import type { CoreSettings } from './workspaces';

/** The terminal `deft acp --setup` talks to: what it reads answers from and writes questions to. */
export interface SetupTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

class Cancelled extends Error {}

/**
 * `deft acp --setup`, ACP's terminal authentication: an editor runs it in a terminal when no model provider is set
 * up. It asks for the protocol, base URL, model and API key (not echoed), tests them with one tiny request and saves
 * them where the window's Settings save them. Returns the exit code: 0 saved, 1 cancelled or not saved.
 */
export async function runSetup(terminal: SetupTerminal, settings: CoreSettings): Promise<number> {
  const out = terminal.output;
  let muted = false;
  // The key is typed into readline like any answer, but what readline echoes is dropped while it is.
  const echo = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) out.write(chunk);
      done();
    },
  });
  const isTty = Boolean((terminal.input as NodeJS.ReadStream).isTTY);
  const rl = createInterface({ input: terminal.input, output: echo, terminal: isTty });
  // Lines are read in order as they come (typed ahead too); the end of input cancels.
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string, hidden = false): Promise<string> => {
    out.write(question);
    muted = hidden;
    try {
      const line = await lines.next();
      if (line.done) throw new Cancelled();
      return String(line.value).trim();
    } finally {
      muted = false;
      if (hidden && isTty) out.write('\n');
    }
  };

  const provider = providerSettings(settings);
  try {
    const current = (await provider.commands.getSettings({})).provider;
    out.write('Deft: set up a model provider (saved for the Deft window, deft run and deft acp).\n');
    const kind = await ask(`Protocol — openai (any OpenAI-compatible Chat Completions server) or anthropic [${current?.kind ?? 'openai'}]: `).then(
      (answer) => answer || current?.kind || 'openai',
    );
    const baseUrl = (await ask(`Base URL${current ? ` [${current.baseUrl}]` : ' (e.g. https://api.moonshot.ai/v1)'}: `)) || current?.baseUrl || '';
    const model = (await ask(`Model${current ? ` [${current.model}]` : ''}: `)) || current?.model || '';
    const keyPrompt = current?.hasApiKey ? 'API key (not shown; empty keeps the saved one): ' : 'API key (not shown; empty for a server without one): ';
    const apiKey = await ask(keyPrompt, true);
    const parsed = settingsSchemas().ProviderSettingsInput.safeParse({ kind, baseUrl, model, ...(apiKey || !current?.hasApiKey ? { apiKey } : {}) });
    if (!parsed.success) {
      out.write(`Not saved: ${parsed.error.issues.map((i) => i.message).join('; ')}.\n`);
      return 1;
    }
    out.write('Testing the connection… ');
    try {
      const test = await provider.commands.testConnection({ provider: parsed.data });
      out.write(`${test.model} answered in ${Math.round(test.latencyMs)} ms.\n`);
    } catch (error) {
      out.write(`it failed: ${(error as Error).message}\n`);
      const anyway = await ask('Save it anyway? [y/N]: ');
      if (!/^y(es)?$/i.test(anyway)) {
        out.write('Not saved.\n');
        return 1;
      }
    }
    await provider.commands.setSettings({ provider: parsed.data });
    out.write('Saved. Deft will use this provider; go back to your editor.\n');
    return 0;
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    out.write('\nSetup cancelled: nothing was saved.\n');
    return 1;
  } finally {
    rl.close();
  }
}
