import type { ToolDisclosure, Tool, ToolSource } from '#contract/tool';
import type { ToolSchema } from '#contract/model';
import { LazyToolInput } from '#contract/tool-input';
import { forWire, fromJsonSchema, toModelSchema } from './schema';

export interface RegisteredTool {
  tool: Tool;
  source: ToolSource;
  disclosure: ToolDisclosure;
  /** Full JSON Schema (with $schema) used for validation. */
  schema: Record<string, unknown>;
  /** What the model is sent. */
  wire: ToolSchema;
}

/**
 * The tools of a session. Schemas are converted once. Inline tools are offered to the model; deferred
 * ones are known but offered only once selected (their schemas stay out of the request until then).
 */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly selected = new Set<string>();

  constructor(tools: readonly Tool[] = [], options: { selected?: Iterable<string> } = {}) {
    for (const tool of tools) this.add(tool);
    for (const name of options.selected ?? []) this.select(name);
  }

  add(tool: Tool): void {
    if (this.byName.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice.`);
    const schema = tool.inputSchema ? fromJsonSchema(tool.inputSchema) : modelSchemaOf(tool.input);
    this.byName.set(tool.name, {
      tool,
      source: tool.source ?? 'builtin',
      disclosure: tool.disclosure ?? 'inline',
      schema,
      wire: { name: tool.name, description: tool.description.trim(), parameters: forWire(schema) },
    });
  }

  /** Any known tool, offered or not. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Whether the model is sent this tool's schema: inline, or deferred and selected. */
  isOffered(name: string): boolean {
    const tool = this.byName.get(name);
    return tool !== undefined && (tool.disclosure === 'inline' || this.selected.has(name));
  }

  /** Offer a deferred tool from the next model step on. */
  select(name: string): 'selected' | 'already offered' | 'unknown' {
    const tool = this.byName.get(name);
    if (!tool) return 'unknown';
    if (this.isOffered(name)) return 'already offered';
    this.selected.add(name);
    return 'selected';
  }

  /** Forget every selection (a compaction: the model no longer reads the calls that made them). */
  clearSelection(): void {
    this.selected.clear();
  }

  /** The names of the offered tools. */
  names(): string[] {
    return [...this.byName.keys()].filter((name) => this.isOffered(name));
  }

  /** Deferred tools not selected yet. */
  deferred(): string[] {
    return [...this.byName.keys()].filter((name) => !this.isOffered(name));
  }

  /** Every tool disclosed as deferred, selected or not. */
  deferredNames(): string[] {
    return [...this.byName.values()].filter((t) => t.disclosure === 'deferred').map((t) => t.tool.name);
  }

  /** What the model is sent: the offered tools. */
  schemas(): ToolSchema[] {
    return [...this.byName.values()].filter((t) => this.isOffered(t.tool.name)).map((t) => t.wire);
  }
}

/** The JSON Schema of a tool's zod input: precomputed for a lazy built-in input (its zod schema is not built). */
function modelSchemaOf(input: Tool['input']): Record<string, unknown> {
  if (!(input instanceof LazyToolInput)) return toModelSchema(input);
  return input.modelSchema ?? toModelSchema(input.schema());
}
