#!/usr/bin/env node
// Deft's headless CLI: `deft run [options] <prompt>`. See `deft --help`.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { MAIN_SOURCES, ensureBuild, root } from '../scripts/ensure-build.mjs';

const argv = process.argv.slice(2);
const entry = join(root, 'out/main/cli.js');
// `deft --help` and `--version` answer from any build there is, without checking the sources for changes.
const quick = argv.length === 1 && ['--help', '-h', '--version', '-v'].includes(argv[0]);
// The CLI runs out/main only: the renderer's sources are not compared (npm start and npm run web do).
if (!quick || !existsSync(entry)) ensureBuild(undefined, MAIN_SOURCES);
const { main } = await import(pathToFileURL(entry).href);
await main(argv);
