// Node module hooks so `import text from './x.md?raw'` (a Vite feature) also works under tsx (benchmarks).
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';

if (!process.env.__DEFT_RAW_HOOKS) {
  process.env.__DEFT_RAW_HOOKS = '1';
  register(import.meta.url);
}

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('?raw')) {
    const url = new URL(specifier, context.parentURL);
    return { url: url.href, shortCircuit: true, format: 'module' };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.endsWith('?raw')) {
    const text = await readFile(new URL(url.slice(0, -'?raw'.length)), 'utf8');
    return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  }
  return next(url, context);
}
