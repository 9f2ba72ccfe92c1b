#!/usr/bin/env node
// Deft's headless CLI: `deft run [options] <prompt>`. See `deft --help`.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';

ensureBuild();
const { main } = await import(pathToFileURL(join(root, 'out/main/cli.js')).href);
await main(process.argv.slice(2));
