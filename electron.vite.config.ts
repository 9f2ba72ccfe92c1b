import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const root = import.meta.dirname;

// Entries are explicit: this project keeps main/, preload/ and renderer/ at the top level.
// main also builds the plain-Node hosts (web, cli), which share the agent core.
export default defineConfig({
  main: {
    build: {
      target: 'node20',
      outDir: 'out/main',
      rolldownOptions: {
        input: {
          index: resolve(root, 'main/index.ts'),
          web: resolve(root, 'main/host/web/entry.ts'),
          cli: resolve(root, 'main/host/cli/entry.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true,
      // One bundle loaded from disk (or loopback): code splitting would not make start-up faster.
      chunkSizeWarningLimit: 1500,
      rolldownOptions: { input: { index: resolve(root, 'renderer/index.html') } },
    },
  },
});
