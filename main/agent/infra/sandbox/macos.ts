import type { FilesystemPolicy } from './filesystem-policy';

/** A string literal in Seatbelt's profile language. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function pathFilter(path: string, dir: boolean): string {
  return dir ? `(subpath ${quote(path)})` : `(literal ${quote(path)})`;
}

export interface SeatbeltOptions {
  policy: FilesystemPolicy;
  /** The port of Deft's proxy on 127.0.0.1: the only place a command may connect to. */
  proxyPort: number | null;
}

/**
 * A Seatbelt profile (sandbox-exec) for one command: writes only under the write roots (and the usual
 * devices), never to the denied paths, however spelt (Seatbelt checks the resolved path); reads
 * everywhere but the hidden paths; network only to Deft's proxy. Later rules win in Seatbelt, so the
 * denies come after the allows. Loopback servers the command starts itself can listen, but connecting
 * to one goes through the proxy like any other host.
 */
export function seatbeltProfile(options: SeatbeltOptions): string {
  const { policy } = options;
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = [
    ...policy.writeRoots.map((root) => pathFilter(root, true)),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/fd/")',
    '(regex #"^/dev/ttys[0-9]+$")',
  ];
  lines.push(`(allow file-write*\n  ${writable.join('\n  ')})`);
  if (policy.denyWrite.length) lines.push(`(deny file-write*\n  ${policy.denyWrite.map((d) => pathFilter(d.path, d.dir)).join('\n  ')})`);
  // Renaming a pinned folder (or a folder above it) would let a command swap in its own.
  if (policy.pins.length) lines.push(`(deny file-write-unlink file-write-create\n  ${policy.pins.map((p) => `(literal ${quote(p)})`).join('\n  ')})`);
  if (policy.denyRead.length) lines.push(`(deny file-read*\n  ${policy.denyRead.map((d) => pathFilter(d.path, d.dir)).join('\n  ')})`);
  lines.push('(deny network-outbound)', '(deny network-bind)');
  lines.push('(allow network-bind (local ip "localhost:*"))', '(allow network-inbound (local ip "localhost:*"))');
  if (options.proxyPort !== null) lines.push(`(allow network-outbound (remote ip "localhost:${options.proxyPort}"))`);
  return `${lines.join('\n')}\n`;
}
