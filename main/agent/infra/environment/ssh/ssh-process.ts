import { PassThrough } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import type { ExecExit, ExecProcess, ExecRequest } from '#contract/environment';
import { shellQuote } from './sftp-errors';

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The command line run on the other machine: it prints its own pid first (sshd starts each command in a session of
 * its own, so that pid is also the process group to kill), then enters the folder and becomes the program.
 */
export function remoteCommand(request: ExecRequest): string {
  const vars = Object.entries(request.env ?? {})
    .filter(([name]) => VAR_NAME.test(name))
    .map(([name, value]) => shellQuote(`${name}=${value}`));
  const program = [...(vars.length ? ['env', ...vars] : []), ...[request.file, ...request.args].map(shellQuote)];
  // Without a pipe to write to, stdin is /dev/null there (ripgrep would search a piped stdin instead of the tree).
  return `printf '%s\\n' "$$"; cd -- ${shellQuote(request.cwd)} || exit 127; exec ${program.join(' ')}${request.stdin === 'pipe' ? '' : ' </dev/null'}`;
}

/** Kill a process group on the other machine: SIGTERM, up to `graceMs`, then SIGKILL. */
export function killScript(pgid: number, graceMs: number): string {
  const rounds = Math.max(1, Math.ceil(graceMs / 100));
  return `kill -TERM -- -${pgid} 2>/dev/null || exit 0; kill -CONT -- -${pgid} 2>/dev/null; i=0; while [ $i -lt ${rounds} ]; do kill -0 -- -${pgid} 2>/dev/null || exit 0; sleep 0.1; i=$((i+1)); done; kill -KILL -- -${pgid} 2>/dev/null; exit 0`;
}

/** How a channel's command ended (null until its exit comes). */
interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** Listen for the channel's exit from now on. */
function exitStatus(channel: ClientChannel): ExitStatus {
  const status: ExitStatus = { code: null, signal: null };
  channel.on('exit', (code: number | null, signal?: string) => {
    status.code = code;
    status.signal = signal ? `SIG${signal}` : null;
  });
  return status;
}

/**
 * An exec channel and its exit status, listened for from the moment it exists: a fast command's exit can come in the
 * same read as the exec's reply (through a jump host, a whole burst of the forwarded stream is parsed at once), before
 * anything awaiting the channel runs.
 */
function execOn(client: Client, command: string): Promise<{ channel: ClientChannel; status: ExitStatus }> {
  return new Promise((resolve, reject) =>
    client.exec(command, (error, channel) => (error ? reject(error) : resolve({ channel, status: exitStatus(channel) }))),
  );
}

/** Run a short command there and collect what it prints (for probes and kills). */
export async function runRemote(client: Client, command: string): Promise<{ stdout: string; code: number | null }> {
  const { channel, status } = await execOn(client, command);
  channel.end();
  let stdout = '';
  channel.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  channel.stderr.resume();
  return new Promise((resolve) => channel.on('close', () => resolve({ stdout, code: status.code })));
}

/**
 * A connection to run on, and why it ended once it has; `warm`, a shell started ahead that runs the command line it
 * is sent (warm-shell.ts), or null when none is ready.
 */
export type Connection = {
  client: Client;
  lost: () => string | null;
  warm?: () => { channel: Promise<ClientChannel | null>; line: (command: string) => string } | null;
};

/**
 * A process on the other machine, over one exec channel of the shared connection (the one `connect` gives: while
 * the connection is being reopened, the process starts once it is back).
 */
export function execRemote(connect: () => Promise<Connection>, request: ExecRequest): ExecProcess {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = request.stdin === 'pipe' ? new PassThrough() : null;
  let pid: number | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  let killing: Promise<void> | null = null;
  let ended = false;
  let connection: Connection | null = null;
  const kill = (graceMs = 5_000): Promise<void> => {
    if (pid === undefined || ended || !connection) return killing ?? Promise.resolve();
    killing ??= runRemote(connection.client, killScript(pid, graceMs)).then(
      () => {},
      () => {},
    );
    return killing;
  };
  const exit = (async (): Promise<ExecExit> => {
    let channel: ClientChannel;
    let status: ExitStatus;
    try {
      connection = await connect();
      const warm = connection.warm?.() ?? null;
      const ready = warm ? await warm.channel : null;
      if (ready) {
        channel = ready;
        // Listened for before the command line is sent: it cannot end sooner.
        status = exitStatus(channel);
        channel.write(warm!.line(remoteCommand(request)));
      } else ({ channel, status } = await execOn(connection.client, remoteCommand(request)));
    } catch (error) {
      stdout.end();
      stderr.end();
      markStarted();
      return {
        code: null,
        signal: null,
        error: { code: 'ECONNRESET', message: connection?.lost() ?? `The command could not be started over SSH: ${(error as Error).message}` },
      };
    }
    if (stdin) stdin.pipe(channel);
    else channel.end();
    let header = '';
    channel.on('data', (chunk: Buffer) => {
      if (pid !== undefined) return void stdout.write(chunk);
      header += chunk.toString('latin1');
      const newline = header.indexOf('\n');
      if (newline === -1) return;
      pid = Number(header.slice(0, newline)) || undefined;
      markStarted();
      const rest = Buffer.from(header.slice(newline + 1), 'latin1');
      if (rest.length) stdout.write(rest);
      if (request.signal?.aborted) void kill();
    });
    channel.stderr.on('data', (chunk: Buffer) => stderr.write(chunk));
    const onAbort = () => void kill();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise<ExecExit>((resolve) => {
      channel.on('close', () => {
        const { code, signal } = status;
        ended = true;
        markStarted();
        request.signal?.removeEventListener('abort', onAbort);
        stdout.end();
        stderr.end();
        const dropped = code === null && signal === null ? connection!.lost() : null;
        resolve(dropped ? { code: null, signal: null, error: { code: 'ECONNRESET', message: dropped } } : { code, signal });
      });
    });
  })();
  return {
    get pid() {
      return pid;
    },
    started,
    stdin,
    stdout,
    stderr,
    exit,
    kill,
  };
}
