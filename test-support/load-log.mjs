// `--import` this (or put it in NODE_OPTIONS) to list what a process loads: every module URL the ESM loader
// loads, and at exit every CommonJS file in require's cache (packages loaded with require), appended to the file
// named by DEFT_LOAD_LOG, one a line. Used to prove that a run leaves packages alone it does not need.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const log = process.env.DEFT_LOAD_LOG;
if (isMainThread && log) {
  register(import.meta.url);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () =>
    appendFileSync(
      log,
      Object.keys(cache)
        .map((file) => `${pathToFileURL(file).href}\n`)
        .join(''),
    ),
  );
}

/** The loader hook (run on the hooks thread): note the URL, load as usual. */
export async function load(url, context, next) {
  if (log) appendFileSync(log, `${url}\n`);
  return next(url, context);
}
