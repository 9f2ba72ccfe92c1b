import { randomBytes } from 'node:crypto';
import type { Client, ClientChannel } from 'ssh2';
import { EnvironmentError, HELPER_UNAVAILABLE, type ScriptRequest, type ScriptResult } from '#contract/environment';
import { shellQuote } from './sftp-errors';
import { killScript, runRemote } from './ssh-process';

/**
 * Bytes as a printf format that prints exactly them: printable ASCII as it is (but `\`, `%` and `'`), every other
 * byte as a three-digit octal escape (POSIX printf, a builtin of every sh), so the text is one single-quoted word
 * whatever the bytes (NULs, newlines, quotes, invalid UTF-8).
 */
export function printfFormat(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) {
    out +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c && byte !== 0x25 && byte !== 0x27 ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/**
 * One request as shell text for the helper: its input written to a file of the helper's private folder (never the
 * helper's own stdin, which carries the requests), the script run in a subshell (its `exit` ends only that) in `cwd`
 * with the arguments as `$1…`, its stdout and stderr kept in files, then a header with the request's random token,
 * the exit code and both lengths, then both outputs. What a script prints never reaches the channel unframed:
 * the reader takes the lengths from the header, so no output can forge a frame.
 */
export function requestText(token: string, request: ScriptRequest): string {
  const input = request.input === undefined ? null : Buffer.isBuffer(request.input) ? request.input : Buffer.from(request.input, 'utf8');
  const setArgs = request.args.length ? `set -- ${request.args.map(shellQuote).join(' ')}; ` : '';
  return [
    input ? `printf '${printfFormat(input)}' >"$D/i" || exit 1` : ': >"$D/i"',
    `( cd -- ${shellQuote(request.cwd)} || exit 127; ${setArgs}eval ${shellQuote(request.script)}\n) <"$D/i" >"$D/o" 2>"$D/e"; deft_rc=$?`,
    `printf 'DEFT-R %s %s %s %s\\n' ${token} "$deft_rc" "$(wc -c <"$D/o")" "$(wc -c <"$D/e")"; cat -- "$D/o" "$D/e"; rm -f -- "$D/i" "$D/o" "$D/e"`,
    '',
  ].join('\n');
}

/** The helper's start: a private folder (named with a random token: no one can have made it first), removed when it ends. */
function startText(token: string): string {
  return [
    `D="\${TMPDIR:-/tmp}/deft-helper.$$.${token}"`,
    // Private by its mode, not by a umask: the scripts keep the login's umask (the files a restore writes get it).
    'mkdir -m 700 -- "$D" || exit 1',
    `trap 'rm -rf -- "$D"' EXIT`,
    `trap 'exit 1' HUP INT TERM`,
    `printf 'DEFT-HELPER %s %s\\n' ${token} "$$"`,
    '',
  ].join('\n');
}

/** How much a login shell's start-up may print before the helper's header (then it is given up). */
const MAX_START_NOISE = 64 * 1024;

interface Pending {
  token: string;
  request: ScriptRequest;
  resolve(result: ScriptResult): void;
  reject(error: Error): void;
}

/**
 * One long-lived exec channel per connection running POSIX `sh`, serving small non-interactive scripts one at a
 * time (the checkpoint store's git scripts): the login shell's start-up (sshd runs `$SHELL -c`, and bash reads
 * ~/.bashrc for it) is paid once, not per script. Never for the user's commands: those need a process of their own.
 * A request that is cancelled kills the helper (its process group, as a process's kill does); one that dies fails
 * what it was serving with a HELPER_UNAVAILABLE error, and the next request starts a new helper.
 */
export class ScriptHelper {
  private channel: ClientChannel | null = null;
  private pid = 0;
  /** What the channel printed and no answer took yet (joined only to read a header, or once an answer is whole). */
  private chunks: Buffer[] = [];
  private size = 0;
  /** The running request's header, once read: its exit code and where its answer ends. */
  private answer: { code: number; out: number; end: number } | null = null;
  private readonly queue: Pending[] = [];
  private running: Pending | null = null;
  private dead: string | null = null;
  private ready: Promise<void>;

  private constructor(
    private readonly client: Client,
    private readonly label: string,
  ) {
    this.ready = this.start();
    this.ready.catch(() => {});
  }

  static open(client: Client, label: string): ScriptHelper {
    return new ScriptHelper(client, label);
  }

  /** Whether it ever answered (a helper that dies before it does counts as a failure to start). */
  get started(): boolean {
    return this.pid !== 0;
  }

  /** Whether a script is running or waiting (a request sent now would wait behind it). */
  get busy(): boolean {
    return this.running !== null || this.queue.length > 0;
  }

  /** Whether it has died (a new one serves the next request). */
  get gone(): boolean {
    return this.dead !== null;
  }

  private start(): Promise<void> {
    const token = randomBytes(12).toString('hex');
    return new Promise<void>((resolve, reject) => {
      this.client.exec('exec /bin/sh -s', (error, channel) => {
        if (error) {
          this.fail(`The helper shell on ${this.label} could not be started: ${error.message}`);
          return reject(new EnvironmentError(HELPER_UNAVAILABLE, this.dead ?? 'The helper shell could not be started.'));
        }
        this.channel = channel;
        let started = false;
        channel.stderr.resume();
        channel.on('data', (chunk: Buffer) => {
          this.chunks.push(chunk);
          this.size += chunk.length;
          if (!started) {
            // What the login shell's start-up printed first (a `.bashrc` that echoes) is passed over, up to the
            // header with this start's random token, which nothing before it can know.
            const buffer = this.joined();
            const header = buffer.indexOf(`DEFT-HELPER ${token} `, 0, 'latin1');
            const newline = header === -1 ? -1 : buffer.indexOf(10, header);
            if (newline === -1) {
              if (this.size > MAX_START_NOISE) this.kill(`The helper shell on ${this.label} printed something unexpected.`);
              return;
            }
            const pid = buffer.subarray(header, newline).toString('latin1').split(' ')[2];
            this.keep(buffer.subarray(newline + 1));
            started = true;
            this.pid = Number(pid) || 0;
            resolve();
          }
          this.drain();
        });
        channel.on('close', () => {
          this.fail(`The helper shell on ${this.label} ended.`);
          reject(new EnvironmentError(HELPER_UNAVAILABLE, this.dead ?? 'The helper shell ended.'));
        });
        channel.write(startText(token));
      });
    });
  }

  /** Run one script; rejects with a HELPER_UNAVAILABLE error when the helper is (or becomes) unusable, with ECANCELED on abort. */
  run(request: ScriptRequest): Promise<ScriptResult> {
    if (this.dead) return Promise.reject(new EnvironmentError(HELPER_UNAVAILABLE, this.dead));
    if (request.signal?.aborted) return Promise.reject(new EnvironmentError('ECANCELED', 'The script was cancelled before it ran.'));
    return new Promise<ScriptResult>((resolve, reject) => {
      const cleanup = () => request.signal?.removeEventListener('abort', onAbort);
      const pending: Pending = {
        token: randomBytes(12).toString('hex'),
        request,
        resolve: (result) => (cleanup(), resolve(result)),
        reject: (error) => (cleanup(), reject(error)),
      };
      const onAbort = () => {
        const at = this.queue.indexOf(pending);
        if (at !== -1) {
          this.queue.splice(at, 1);
          return pending.reject(new EnvironmentError('ECANCELED', 'The script was cancelled before it ran.'));
        }
        if (this.running === pending) {
          this.running = null;
          pending.reject(new EnvironmentError('ECANCELED', 'The script was cancelled.'));
          this.kill('A script was cancelled, so the helper shell was stopped.');
        }
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      void this.ready.then(
        () => this.next(),
        () => {},
      );
    });
  }

  private next(): void {
    if (this.running || this.dead || !this.channel) return;
    const pending = this.queue.shift();
    if (!pending) return;
    this.running = pending;
    this.channel.write(requestText(pending.token, pending.request));
  }

  private joined(): Buffer {
    const buffer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [buffer];
    return buffer;
  }

  private keep(rest: Buffer): void {
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
  }

  /** Take whole answers off what arrived: a header line, then exactly the lengths it names. */
  private drain(): void {
    for (;;) {
      const current = this.running;
      if (!current) {
        // Output nothing asked for (a killed request's end): the helper cannot be trusted any more.
        if (this.size) this.kill(`The helper shell on ${this.label} printed something unexpected.`);
        return;
      }
      if (!this.answer) {
        const buffer = this.joined();
        const newline = buffer.indexOf(10);
        if (newline === -1) return;
        const [word, token, rc, outLength, errLength] = buffer.subarray(0, newline).toString('latin1').trim().split(/\s+/);
        const [out, err] = [Number(outLength), Number(errLength)];
        if (word !== 'DEFT-R' || token !== current.token || !/^\d+$/.test(rc ?? '') || !Number.isSafeInteger(out) || !Number.isSafeInteger(err))
          return this.kill(`The helper shell on ${this.label} answered out of step.`);
        this.keep(buffer.subarray(newline + 1));
        this.answer = { code: Number(rc), out, end: out + err };
      }
      // A large output arrives in many chunks: joined once, when it is whole.
      if (this.size < this.answer.end) return;
      const buffer = this.joined();
      const { code, out, end } = this.answer;
      const stdout = Buffer.from(buffer.subarray(0, out));
      const stderr = Buffer.from(buffer.subarray(out, end));
      this.keep(buffer.subarray(end));
      this.answer = null;
      this.running = null;
      current.resolve({ stdout, stderr, code });
      this.next();
    }
  }

  /** Stop it: its process group there, and its channel; whatever it was serving or had queued fails. */
  kill(reason: string): void {
    if (this.pid) void runRemote(this.client, killScript(this.pid, 1_000)).catch(() => {});
    this.fail(reason);
    this.channel?.close();
  }

  close(): void {
    this.fail(`The helper shell on ${this.label} was closed.`);
    this.channel?.end();
  }

  private fail(reason: string): void {
    this.dead ??= reason;
    const error = new EnvironmentError(HELPER_UNAVAILABLE, this.dead);
    const waiting = [...(this.running ? [this.running] : []), ...this.queue.splice(0)];
    this.running = null;
    for (const pending of waiting) pending.reject(error);
  }
}
