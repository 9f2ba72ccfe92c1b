import type { Client, ClientChannel } from 'ssh2';
import { shellQuote } from './sftp-errors';

/**
 * What a prestarted shell runs: it keeps a newline in `deft_nl`, reads one line — the command — and runs it in
 * itself. sshd runs it as it runs any command (`$SHELL -c …`, so bash reads `~/.bashrc` first), so the command sees
 * exactly what a command of its own would: the login's PATH and variables, and what `.bashrc` defines. `read` takes
 * the line byte by byte from the channel, so what follows it is the command's own stdin. Plain POSIX: any sh, bash,
 * zsh or ksh runs it; a login shell that cannot (fish, csh) ends, and commands start as processes of their own.
 */
export const WARM_BOOTSTRAP = 'deft_nl=\'\n\'; IFS= read -r deft_line && eval "$deft_line"';

/**
 * The command as the one line a prestarted shell reads: `eval` of its text single-quoted, each newline in it spelt
 * `"$deft_nl"` (quoting every shell reads alike; no escape sequences).
 */
export function warmLine(command: string): string {
  return `eval ${command.split('\n').map(shellQuote).join('"$deft_nl"')}\n`;
}

/** After this many prestarted shells ended unused (a shell that cannot run the bootstrap, a `TMOUT`), none are started. */
const MAX_WASTED = 2;

/**
 * When the next shell is started ahead: `eager`, at the first command (a window or web host: it stays open, and its
 * next command is near sure to come); `repeated`, from the second command on (a one-shot `deft run`, which may run
 * one command and exit: a run of one command pays for no shell it does not use).
 */
export type ShellsAhead = 'eager' | 'repeated';

interface Warm {
  /** The shell's channel once the server has started it (null when it could not). */
  channel: Promise<ClientChannel | null>;
  closed: boolean;
  used: boolean;
}

/**
 * One login shell kept started ahead of the next command on a connection: the start-up of the user's shell (its
 * `.bashrc`, `pyenv init`…) is paid while nothing waits, not when a command is run. A command takes the shell (one
 * still starting too: it is further along than a new one would be) and sends it its command line; the next one is
 * started at once. Each command still has an exec channel, a session and a process group of its own (stdio, exit
 * code, kill of the tree as before). It holds one of the server's sessions while it waits (OpenSSH's `MaxSessions`
 * is 10 per connection).
 */
export class WarmShells {
  private next: Warm | null = null;
  private wasted = 0;
  private closed = false;
  private taken = 0;

  constructor(
    private readonly client: Client,
    private readonly ahead: () => ShellsAhead = () => 'eager',
    /** Told of each shell started (for the usage counters). */
    private readonly onStart: () => void = () => {},
  ) {}

  /** Whether prestarted shells are still being made on this connection. */
  get active(): boolean {
    return !this.closed && this.wasted < MAX_WASTED;
  }

  /**
   * The waiting shell, to send a command line to (with `warmLine`): null when there is none, or once it resolves
   * when it could not be started (the caller starts the command on an exec channel of its own, as without this).
   * Starts the next shell either way (`repeated`: from the second command on).
   */
  take(): Promise<ClientChannel | null> | null {
    const ready = this.next && !this.next.closed ? this.next : null;
    this.next = null;
    if (ready) ready.used = true;
    this.taken++;
    if (this.ahead() === 'eager' || this.taken >= 2) this.start();
    return ready?.channel ?? null;
  }

  /** A command is coming: a shell is started for it now, unless one waits already (or none are made any more). */
  prepare(): void {
    this.start();
  }

  private start(): void {
    if (!this.active || this.next) return;
    const warm: Warm = { channel: Promise.resolve(null), closed: false, used: false };
    this.onStart();
    const ended = () => {
      if (warm.closed) return;
      warm.closed = true;
      if (warm.used) return;
      this.wasted++;
      if (this.next === warm) this.next = null;
    };
    warm.channel = new Promise<ClientChannel | null>((resolve) => {
      try {
        this.client.exec(WARM_BOOTSTRAP, (error, channel) => {
          if (error) {
            ended();
            return resolve(null);
          }
          // 'exit' comes first, and without the channel's output being read (an unused shell's is not).
          channel.once('exit', ended);
          channel.once('close', ended);
          if (this.closed) {
            channel.close();
            return resolve(null);
          }
          resolve(channel);
        });
      } catch {
        // The connection is going away: no shell to start.
        ended();
        resolve(null);
      }
    });
    this.next = warm;
  }

  /**
   * The waiting shell ends (the connection is closing). Its channel is closed; a start-up still running there
   * (`.bashrc`, `pyenv init`) runs on to its end all the same (OpenSSH passes no signal to a session's processes
   * unless it runs with privilege separation: not as a test's root sshd, so it cannot be counted on), which is why
   * a one-shot run does not start one it may not use (`repeated`).
   */
  close(): void {
    this.closed = true;
    const waiting = this.next;
    this.next = null;
    void waiting?.channel.then((channel) => channel?.close());
  }
}
