// The built web host (out/main/web.js) as a child process, for benchmarks that drive it in Chromium.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { root } from '../scripts/ensure-build.mjs';
import { WEB_HOST_NODE_FLAGS } from '../scripts/host-flags.mjs';

export interface BenchHost {
  url: string;
  child: ChildProcess;
  /** Node inspector of the host (only with `inspect: true`): its heap, measured after a full GC. */
  inspector: HostInspector | null;
  /** SIGTERM, and resolve once it has exited (it may still be writing a session). */
  stop(): Promise<void>;
}

/**
 * Start the web host on `workspace` with `home` as DEFT_HOME and wait for the URL it prints. With `inspect`,
 * the host runs with the Node inspector on a loopback port chosen by the OS, so the benchmark can read its heap.
 */
export async function startBenchHost(workspace: string, home: string, options: { inspect?: boolean } = {}): Promise<BenchHost> {
  const args = [...WEB_HOST_NODE_FLAGS, ...(options.inspect ? ['--inspect=127.0.0.1:0'] : []), join(root, 'out/main/web.js'), '--workspace', workspace];
  const child = spawn(process.execPath, args, { env: { ...process.env, DEFT_HOME: home }, stdio: ['ignore', 'pipe', options.inspect ? 'pipe' : 'inherit'] });
  const inspectorUrl = options.inspect
    ? new Promise<string>((resolve) => {
        let err = '';
        child.stderr!.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /Debugger listening on (ws:\/\/\S+)/.exec(err);
          if (m?.[1]) resolve(m[1]);
          // The inspector's own lines are noise; anything else the host says is worth seeing.
          for (const line of d.toString().split('\n')) if (line && !/Debugger|inspector|nodejs\.org\/en\/docs/i.test(line)) process.stderr.write(`${line}\n`);
        });
      })
    : null;
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Open (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`web host exited with ${code}:\n${out}`)));
  });
  const inspector = inspectorUrl ? await HostInspector.connect(await inspectorUrl) : null;
  return {
    url,
    child,
    inspector,
    stop: async () => {
      inspector?.close();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A minimal Chrome DevTools Protocol client for a Node process's inspector. */
export class HostInspector {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<string, (params: unknown) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string } };
      if (message.method) this.listeners.get(message.method)?.(message.params);
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
  }

  static connect(url: string): Promise<HostInspector> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new HostInspector(ws)));
      ws.once('error', reject);
    });
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Used JS heap in bytes after a full garbage collection. */
  async heapAfterGc(): Promise<number> {
    await this.send('HeapProfiler.collectGarbage');
    return (await this.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  }

  /** The host's heap snapshot (for a diff of two: what grew). */
  async heapSnapshot(): Promise<string> {
    const chunks: string[] = [];
    this.listeners.set('HeapProfiler.addHeapSnapshotChunk', (params) => chunks.push((params as { chunk: string }).chunk));
    await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    this.listeners.delete('HeapProfiler.addHeapSnapshotChunk');
    return chunks.join('');
  }

  close(): void {
    this.ws.close();
  }
}

/** Resident set size of a process in bytes (Linux: /proc/PID/status). */
export async function processRss(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kib) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
}

/** CPU time a process has used so far in ms, user and system (Linux: /proc/PID/stat, in clock ticks of 10 ms). */
export async function processCpu(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
