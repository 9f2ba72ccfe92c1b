import type { ToolSchema } from '../../infra/providers/types';
import type { Tool } from '../../contract/tool';
import { forWire, toModelSchema } from './schema';

export interface RegisteredTool {
  tool: Tool;
  /** Full JSON Schema (with $schema) used for validation. */
  schema: Record<string, unknown>;
  /** What the model is sent. */
  wire: ToolSchema;
}

/** The tools offered in a session. Schemas are converted once. */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: Tool): void {
    if (this.byName.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice.`);
    const schema = toModelSchema(tool.input);
    this.byName.set(tool.name, { tool, schema, wire: { name: tool.name, description: tool.description.trim(), parameters: forWire(schema) } });
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  schemas(): ToolSchema[] {
    return [...this.byName.values()].map((t) => t.wire);
  }
}
