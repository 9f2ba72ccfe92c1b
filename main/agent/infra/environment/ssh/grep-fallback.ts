import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import { picomatchPackage } from '#infra/platform/on-demand';
import { EnvironmentError, type ExecProcess } from '#contract/environment';
import { shellQuote } from './sftp-errors';

/** What ripgrep prints after a line cut by `--max-columns-preview`. */
const OMITTED = ' [... omitted end of long line]';

const WITH_VALUE = new Set(['--color', '--max-columns', '--context', '--after-context', '--before-context', '--type', '--glob', '--regexp', '-j']);

/** The ripgrep arguments Deft's searches use, read back (others are ignored). */
interface RgRequest {
  files: boolean;
  filesWithMatches: boolean;
  count: boolean;
  lineNumber: boolean;
  ignoreCase: boolean;
  multiline: boolean;
  maxColumns: number | null;
  context: { C?: string; A?: string; B?: string };
  type: string | null;
  include: string[];
  excludeDirs: string[];
  pattern: string | null;
  targets: string[];
}

function readArgs(args: readonly string[]): RgRequest {
  const request: RgRequest = {
    files: false,
    filesWithMatches: false,
    count: false,
    lineNumber: false,
    ignoreCase: false,
    multiline: false,
    maxColumns: null,
    context: {},
    type: null,
    include: [],
    excludeDirs: [],
    pattern: null,
    targets: [],
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      request.targets = args.slice(i + 1);
      break;
    }
    const value = WITH_VALUE.has(arg) ? (args[++i] ?? '') : '';
    if (arg === '--files') request.files = true;
    else if (arg === '--files-with-matches') request.filesWithMatches = true;
    else if (arg === '--count-matches') request.count = true;
    else if (arg === '--line-number') request.lineNumber = true;
    else if (arg === '--ignore-case') request.ignoreCase = true;
    else if (arg === '--multiline') request.multiline = true;
    else if (arg === '--max-columns') request.maxColumns = Number(value) || null;
    else if (arg === '--context') request.context.C = value;
    else if (arg === '--after-context') request.context.A = value;
    else if (arg === '--before-context') request.context.B = value;
    else if (arg === '--type') request.type = value;
    else if (arg === '--regexp') request.pattern = value;
    else if (arg === '--glob') (value.startsWith('!') ? request.excludeDirs : request.include).push(value.replace(/^!/, ''));
  }
  return request;
}

/** A path as ripgrep prints it (relative, no leading `./`) kept when it passes the globs (ripgrep's reading: no `/`, any depth). */
function globFilter(include: readonly string[]): (path: string) => boolean {
  if (!include.length) return () => true;
  const matchers = include.map((glob) => picomatchPackage()(glob.replace(/^\//, ''), { dot: true, basename: !glob.includes('/') }));
  return (path) => matchers.every((m) => m(path));
}

/** The command (for `sh -c` in the search folder) and how each line it prints becomes the line ripgrep would print. */
export interface FallbackPlan {
  script: string;
  mapLine: (line: string) => string | null;
}

/**
 * A search ripgrep would run, done with `grep -r` (or `find` for a file listing) and printed as ripgrep prints it,
 * so the tools read one format. Throws for what grep cannot do (a multiline pattern, a file type).
 */
export function fallbackPlan(args: readonly string[]): FallbackPlan {
  const request = readArgs(args);
  if (request.multiline) throw new EnvironmentError('ENOTSUP', 'A multiline search needs ripgrep, which this machine lacks: search without multiline.');
  if (request.type) throw new EnvironmentError('ENOTSUP', `A file type (type "${request.type}") needs ripgrep, which this machine lacks: use glob instead.`);
  const keep = globFilter(request.include);
  const relative = (path: string) => path.replace(/^\.\//, '');
  if (request.files) {
    const prune = request.excludeDirs.map((d) => `-name ${shellQuote(d)}`).join(' -o ');
    return {
      script: `exec find . ${prune ? `\\( ${prune} \\) -prune -o ` : ''}-type f -print`,
      mapLine: (line) => (line && keep(relative(line)) ? relative(line) : null),
    };
  }
  const flags = ['-r', '-H', '-I'];
  if (request.ignoreCase) flags.push('-i');
  if (request.filesWithMatches) flags.push('-l');
  else if (request.count) flags.push('-c');
  else {
    flags.push('-Z');
    if (request.lineNumber) flags.push('-n');
    if (request.context.C !== undefined) flags.push('-C', request.context.C);
    if (request.context.A !== undefined) flags.push('-A', request.context.A);
    if (request.context.B !== undefined) flags.push('-B', request.context.B);
  }
  for (const dir of request.excludeDirs) flags.push(`--exclude-dir=${dir}`);
  const tail = [...flags, '-e', request.pattern ?? '', '--', ...request.targets].map(shellQuote).join(' ');
  // Perl syntax (GNU grep -P) is nearest ripgrep's; extended regular expressions otherwise.
  const script = `if echo x | grep -qP x 2>/dev/null; then m=-P; else m=-E; fi; exec grep $m ${tail}`;
  let mapLine: FallbackPlan['mapLine'];
  if (request.filesWithMatches) mapLine = (line) => (line && keep(relative(line)) ? relative(line) : null);
  else if (request.count)
    mapLine = (line) => {
      const colon = line.lastIndexOf(':');
      const path = relative(line.slice(0, colon));
      const count = line.slice(colon + 1);
      return colon > 0 && count !== '0' && keep(path) ? `${path}\0${count}` : null;
    };
  else
    mapLine = (line) => {
      const nul = line.indexOf('\0');
      if (nul === -1) return line === '--' ? line : null;
      const path = relative(line.slice(0, nul));
      if (!keep(path)) return null;
      const rest = line.slice(nul + 1);
      // The columns are the line's own, after its number.
      const number = request.lineNumber ? (/^\d+[:-]/.exec(rest)?.[0] ?? '') : '';
      const text = rest.slice(number.length);
      const cut = request.maxColumns && text.length > request.maxColumns ? text.slice(0, request.maxColumns) + OMITTED : text;
      return `${path}\0${number}${cut}`;
    };
  return { script, mapLine };
}

/** The process with its output rewritten line by line; `exit` settles once the rewritten output has been read to its end. */
export function mappedOutput(process: ExecProcess, mapLine: (line: string) => string | null): ExecProcess {
  let partial = '';
  const emit = (stream: Transform, line: string) => {
    const mapped = mapLine(line);
    if (mapped !== null) stream.push(`${mapped}\n`);
  };
  const stdout = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!;
      for (const line of lines) emit(this, line);
      done();
    },
    flush(done) {
      // A last line without its newline was cut off (a stopped search): dropped, as ripgrep's readers do.
      done();
    },
  });
  process.stdout.pipe(stdout);
  const drained = finished(stdout).catch(() => {});
  return {
    get pid() {
      return process.pid;
    },
    started: process.started,
    stdin: process.stdin,
    stdout,
    stderr: process.stderr,
    exit: Promise.all([process.exit, drained]).then(([exit]) => exit),
    kill: (graceMs) => process.kill(graceMs),
  };
}
