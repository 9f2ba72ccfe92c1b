import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY } from './main/host/web/security';

const root = import.meta.dirname;

/** One CSP for both hosts: the web host sends it as a header, Electron's file:// page carries it as a meta tag. */
function contentSecurityPolicy(): Plugin {
  // frame-ancestors is ignored (with a console warning) in a meta tag; Electron denies framing anyway.
  const meta = CONTENT_SECURITY_POLICY.split('; ')
    .filter((d) => !d.startsWith('frame-ancestors'))
    .join('; ');
  return { name: 'deft-csp', transformIndexHtml: (html) => html.replace('%DEFT_CSP%', meta) };
}

// Entries are explicit: this project keeps main/, preload/ and renderer/ at the top level.
// main also builds the plain-Node hosts (web, cli), which share the agent core.
export default defineConfig({
  main: {
    build: {
      target: 'node20',
      outDir: 'out/main',
      // Bundled rather than loaded from node_modules at start: zod's 95 files (with every locale) cost a cold
      // run more to resolve and compile than the parts of it Deft uses.
      externalizeDeps: { exclude: ['zod'] },
      rolldownOptions: {
        // ASCII-only output (non-ASCII characters in strings written as escapes): Node decodes an ASCII file to a
        // one-byte string, and V8 scans and compiles that faster than the two-byte string one "…" makes of a whole
        // chunk (issue 36: about 10 ms of a cold `deft run`'s CPU).
        output: { charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } },
        input: {
          index: resolve(root, 'main/index.ts'),
          web: resolve(root, 'main/host/web/entry.ts'),
          cli: resolve(root, 'main/host/cli/entry.ts'),
          // deft/sdk (package.json "exports"): query() for Node programs, over the CLI's stream-json run.
          sdk: resolve(root, 'main/host/sdk/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // Sandboxed preloads cannot require packages: bundle everything.
      externalizeDeps: false,
      outDir: 'out/preload',
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react(), contentSecurityPolicy()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true,
      // One bundle loaded from disk (or loopback): code splitting would not make start-up faster.
      chunkSizeWarningLimit: 1500,
      rolldownOptions: { input: { index: resolve(root, 'renderer/index.html') } },
    },
  },
});
