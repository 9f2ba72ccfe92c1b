// `npm start`: build if needed and launch Electron. Where Electron's binary is missing and cannot be
// downloaded, say so in one line and start the web host instead.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { electronBinary } from './electron-binary.mjs';
import { ensureBuild, root } from './ensure-build.mjs';

ensureBuild();
const args = process.argv.slice(2);

let binary = electronBinary();
if (!binary && !process.env.DEFT_NO_ELECTRON) {
  // Electron 42+ downloads its binary on first launch; try once, quietly, with a time limit.
  spawnSync(process.execPath, [join(root, 'node_modules/electron/install.js')], { cwd: root, stdio: 'ignore', timeout: 120_000 });
  binary = electronBinary();
}

if (binary && !process.env.DEFT_NO_ELECTRON) {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [root, ...args], { stdio: 'inherit', env });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('Electron could not be started here (its binary is missing and could not be downloaded); starting the web host instead.');
  // `--remote HOST:/path` serves a folder of another machine (the web host refuses it with --workspace).
  if (!args.includes('--workspace') && !args.includes('--remote')) args.push('--workspace', process.env.INIT_CWD ?? process.cwd());
  process.argv = [process.argv[0], process.argv[1], ...args];
  await import(pathToFileURL(join(root, 'out/main/web.js')).href);
}
