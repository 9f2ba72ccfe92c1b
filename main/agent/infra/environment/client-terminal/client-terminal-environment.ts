import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Environment, ExecExit, ExecProcess, ExecRequest } from '#contract/environment';
import { KILL_GRACE_MS, killTree } from '../../processes/kill-tree';
import { hasEnvMarker } from '../../processes/process-table';

/** How a terminal's command ended, as an editor reports it (ACP's `TerminalExitStatus`). */
export interface TerminalExit {
  exitCode?: number | null;
  signal?: string | null;
}

/** A terminal an editor runs a command in (ACP's `terminal/*`), as this wrapper needs it. */
export interface ClientTerminal {
  readonly id: string;
  /** The output so far (stdout and stderr together, as the terminal shows them), and the exit once it has ended. */
  output(): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit | null }>;
  waitForExit(): Promise<TerminalExit>;
  kill(): Promise<void>;
  release(): Promise<void>;
}

export interface ClientTerminals {
  create(request: { command: string; args: string[]; cwd: string; outputByteLimit: number; toolCallId: string }): Promise<ClientTerminal>;
}

/** What the editor keeps of a command's output: above the shell's own cap (16 MiB), which stops a command first. */
const OUTPUT_BYTE_LIMIT = 17 * 1024 * 1024;
/** How often the output is asked for while the command runs; less often as it grows (each answer is all of it). */
const POLL_MS = 100;
const POLL_MAX_MS = 2_000;
/** How long the command has to say its pid before it is taken as lost. */
const PID_WAIT_MS = 5_000;
/** How much of a cut output's start is looked for in what was shown before. */
const PROBE_CHARS = 64;

/**
 * `inner` with the commands of tool calls the user watches (`ExecRequest.toolCallId`: Bash) run in the editor's
 * terminals, so the editor shows them live; every other process (git, ripgrep, hooks, servers) stays `inner`'s.
 *
 * The editor gets exactly the program `inner` would have run — the sandbox's plan when there is one, built on Deft's
 * side — under `env -i` with exactly the request's environment, so neither the editor's variables (its tokens, its
 * PATH) reach the command nor a terminal's defaults widen what it may do. Editors start agents on their own machine,
 * so this is only used over a local environment: the pid the command writes to a private file is this machine's, and
 * is checked against the request's marker before Deft ever signals it. Output is the terminal's (stdout and stderr
 * together), polled while it runs. When the editor cannot make a terminal, the command runs as `inner` would run it.
 */
export function clientTerminalEnvironment(inner: Environment, terminals: () => ClientTerminals | null): Environment {
  if (inner.kind !== 'local') return inner;
  let pidFolder: string | null = null;
  const pidFile = (name: string) => {
    pidFolder ??= mkdtempSync(join(tmpdir(), 'deft-terminal-'));
    return join(pidFolder, name);
  };
  const exec = (request: ExecRequest): ExecProcess => {
    const client = request.toolCallId && request.marker && request.env ? terminals() : null;
    if (!client) return inner.exec(request);
    return terminalProcess(client, request as TerminalRequest, pidFile, () => inner.exec(request));
  };
  return new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'exec') return exec;
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

type TerminalRequest = ExecRequest & { toolCallId: string; marker: string; env: Readonly<Record<string, string>> };

function terminalProcess(client: ClientTerminals, request: TerminalRequest, pidFile: (name: string) => string, fallback: () => ExecProcess): ExecProcess {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const id = request.marker.slice(request.marker.indexOf('=') + 1).replace(/[^A-Za-z0-9_-]/g, '_');
  const pidPath = pidFile(`${id}.pid`);
  let terminal: ClientTerminal | null = null;
  let pid: number | undefined;
  let local: ExecProcess | null = null;
  let stopping: Promise<void> | null = null;
  let lost = false;

  const started = (async () => {
    try {
      terminal = await client.create({
        // `env -i` leaves the editor's environment behind; the shell writes its pid, then becomes the program.
        command: '/usr/bin/env',
        args: [
          '-i',
          ...Object.entries(request.env).map(([k, v]) => `${k}=${v}`),
          '/bin/sh',
          '-c',
          'printf %s "$$" > "$1" && shift && exec "$@"',
          'deft',
          pidPath,
          request.file,
          ...request.args,
        ],
        cwd: request.cwd,
        outputByteLimit: OUTPUT_BYTE_LIMIT,
        toolCallId: request.toolCallId,
      });
    } catch {
      local = fallback();
      await local.started;
      return;
    }
    const found = await ownPid(pidPath, request.marker, terminal);
    if (found === 'lost') {
      lost = true;
      await terminal.kill().catch(() => {});
    } else pid = found;
  })();

  const kill = (graceMs = KILL_GRACE_MS): Promise<void> => {
    stopping ??= (async () => {
      await started;
      if (local) return local.kill(graceMs);
      const signalled = pid !== undefined ? killTree({ pid, marker: request.marker }, graceMs) : Promise.resolve();
      await Promise.allSettled([terminal?.kill(), signalled]);
    })();
    return stopping;
  };

  const exit = (async (): Promise<ExecExit> => {
    await started;
    if (local) {
      const ended = local as ExecProcess;
      ended.stdout.pipe(stdout);
      ended.stderr.pipe(stderr);
      return ended.exit;
    }
    const open = terminal!;
    const ended = open.waitForExit().then(
      (status) => status,
      (error: Error) => ({ error }),
    );
    let shown = '';
    let done = false;
    void ended.then(() => (done = true));
    const take = async () => {
      const now = await open.output().catch(() => null);
      if (!now) return;
      const fresh = newPart(shown, now.output);
      shown = now.output;
      if (fresh) stdout.write(fresh);
    };
    while (!done) {
      const wait = Math.min(POLL_MAX_MS, POLL_MS * Math.max(1, shown.length / 65_536));
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, wait))]);
      await take();
    }
    stdout.end();
    stderr.end();
    await open.release().catch(() => {});
    rmSync(pidPath, { force: true });
    const status = await ended;
    if (lost)
      return {
        code: null,
        signal: null,
        error: { code: 'ESRCH', message: "The editor's terminal started the command, but Deft could not find its process to watch, so it was stopped." },
      };
    if ('error' in status) return { code: null, signal: null, error: { code: 'ECONNRESET', message: `The editor's terminal failed: ${status.error.message}` } };
    return { code: status.exitCode ?? null, signal: status.signal ?? null };
  })();

  if (request.signal) {
    const onAbort = () => void kill();
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    void exit.then(() => request.signal!.removeEventListener('abort', onAbort));
  }

  return {
    get pid() {
      return local ? local.pid : pid;
    },
    started,
    stdin: null,
    stdout,
    stderr,
    exit,
    kill,
  };
}

/**
 * The pid the command wrote, once it is a live process carrying the request's marker (where /proc tells; elsewhere a
 * live process); undefined when the command ended first, `lost` when it never said.
 */
async function ownPid(path: string, marker: string, terminal: ClientTerminal): Promise<number | undefined | 'lost'> {
  const deadline = Date.now() + PID_WAIT_MS;
  while (Date.now() < deadline) {
    const pid = Number.parseInt(readText(path), 10);
    if (pid > 1 && (process.platform === 'linux' ? await hasEnvMarker(pid, marker) : alive(pid))) return pid;
    const status = await terminal.output().catch(() => null);
    if (status?.exitStatus) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return 'lost';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * What `now` adds to what was shown before. When the editor cut the front of what it keeps, `now` is an end of what
 * was shown followed by what is new: the longest such end is taken (found by its first characters).
 */
export function newPart(shown: string, now: string): string {
  if (now.startsWith(shown)) return now.slice(shown.length);
  const probe = now.slice(0, PROBE_CHARS);
  for (let at = shown.indexOf(probe); at >= 0; at = shown.indexOf(probe, at + 1)) {
    const kept = shown.length - at;
    if (kept <= now.length && now.startsWith(shown.slice(at))) return now.slice(kept);
  }
  // Less of it kept than the probe is long.
  for (let at = Math.max(0, shown.length - PROBE_CHARS); at < shown.length; at++) if (now.startsWith(shown.slice(at))) return now.slice(shown.length - at);
  return now;
}
