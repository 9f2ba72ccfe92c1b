// `npm run web -- --workspace DIR [--port N]`: build if needed, then serve the UI on loopback.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild, root } from './ensure-build.mjs';

ensureBuild();
await import(pathToFileURL(join(root, 'out/main/web.js')).href);
