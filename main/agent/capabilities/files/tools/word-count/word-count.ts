import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { access, defineTool } from '../../../../contract/tool';
import { asToolError, existingFile, guard, pathRules } from '../../tool-support';
import description from './word-count.md?raw';

const Input = z.object({ path: z.string().min(1).describe('The file, relative to the workspace or absolute.') }).strict();

export const wordCountTool = defineTool({
  name: 'WordCount',
  // How it is approved (contract/tool.ts ToolPolicy): by the mode and the rules; sub-agents may have it.
  policy: { approval: 'rules', mainAgentOnly: false },
  description,
  input: Input,
  async resolveExecution(args, env) {
    // The path guard: relative to the workspace, links resolved, secrets refused (a ToolInputError the model reads).
    const path = await guard(env, args.path, 'read');
    return {
      accesses: access.readFile(path.real),
      description: `Count words in ${path.display}`,
      display: { kind: 'generic', summary: `WordCount ${path.display}` },
      ...pathRules('WordCount', path),
      readOnly: true,
      execute: () =>
        asToolError(async () => {
          await existingFile(path, 'Check the path; Glob finds files by name.');
          const text = await readFile(path.real, 'utf8');
          const words = text.split(/\s+/).filter(Boolean).length;
          return { output: `${path.display}: ${text.split('\n').length} lines, ${words} words, ${text.length} characters.` };
        }),
    };
  },
});
