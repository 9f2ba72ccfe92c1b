// `--import` this (or put it in NODE_OPTIONS) to list where a process builds zod schemas: for every schema
// constructed, the first source file on the stack outside node_modules (the module whose code built it), appended
// at exit to the file named by DEFT_SCHEMA_LOG, one a line. Used to prove that a run leaves unbuilt the schemas it
// does not use (zod defines `_zod` on every schema it constructs, with Object.defineProperty).
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const log = process.env.DEFT_SCHEMA_LOG;
if (isMainThread && log) {
  const builtBy = [];
  const define = Object.defineProperty;
  Object.defineProperty = function defineProperty(target, key, descriptor) {
    if (key === '_zod') {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 50;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      const frame = stack
        .split('\n')
        .slice(1)
        .map((line) => /\((.*):\d+:\d+\)$|at (.*):\d+:\d+$/.exec(line))
        .map((match) => match && (match[1] ?? match[2]))
        .find((file) => file && !file.includes('/node_modules/') && !file.endsWith('schema-log.mjs') && !file.startsWith('node:'));
      builtBy.push(frame ?? '(unknown)');
    }
    return define(target, key, descriptor);
  };
  process.on('exit', () => appendFileSync(log, builtBy.map((file) => `${file}\n`).join('')));
}
