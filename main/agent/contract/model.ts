import type { FinishReason, Usage } from '#protocol';

// The model vocabulary the contract speaks: messages, tool calls and schemas, and what a provider is. The
// providers (infra/providers/) implement it; tools, the loop and the sessions use it.

/** What a server's model list says about one model, where it says it. */
export interface ModelInfo {
  id: string;
  /** Whether the model reads images; undefined when the list does not say. */
  imageInput?: boolean;
}

/** A piece of message content the model reads. Images travel as base64. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string };

/** A tool call as the model issued it; `arguments` is the raw JSON text. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Facts a message told the model, by key (contract/facts.ts): the fact's text, or null when it said the
 * fact no longer holds. The history is the record of what the model knows; providers never send it.
 */
export type AnnouncedFacts = Record<string, string | null>;

/**
 * The conversation as the core keeps it, independent of any wire format. A message is never changed once
 * it is in the history (the session freezes it), so every request starts with the previous one.
 */
export type ModelMessage =
  /** `turnId` marks a turn's prompt (undo and compaction find turns by it); providers never send it. */
  | { role: 'user'; content: string | ContentPart[]; turnId?: string; announced?: AnnouncedFacts }
  | { role: 'assistant'; content: string; reasoning?: string; reasoningSignature?: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string | ContentPart[]; isError?: boolean; announced?: AnnouncedFacts };

/** A tool as offered to the model. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface StepRequest {
  system: string;
  messages: readonly ModelMessage[];
  tools: readonly ToolSchema[];
  signal: AbortSignal;
  maxOutputTokens?: number;
}

/** Streaming callbacks; called in stream order. */
export interface StepCallbacks {
  onText(text: string): void;
  onThinking(text: string): void;
  /** Something the user should know that did not stop the step (the server refused the effort setting). */
  onNote?(message: string): void;
  /** The model began a tool call (its name is known, its arguments may still be streaming): work a tool call needs can start. */
  onToolCall?(name: string): void;
}

export interface StepResult {
  text: string;
  reasoning: string;
  /** Anthropic signs its thinking; the signature must travel back with it. */
  reasoningSignature?: string;
  toolCalls: ToolCallRequest[];
  finishReason: FinishReason;
  rawFinishReason: string | null;
  usage: Usage | null;
}

export interface ProviderCapabilities {
  imageInput: boolean;
}

/** A model endpoint. One `step` is one streamed request. */
export interface ChatProvider {
  readonly kind: string;
  readonly model: string;
  readonly capabilities: ProviderCapabilities;
  step(request: StepRequest, callbacks: StepCallbacks): Promise<StepResult>;
  listModels(signal?: AbortSignal): Promise<string[]>;
  /** The server's model list with what it says about each model (its input modalities, where given). */
  listModelInfo(signal?: AbortSignal): Promise<ModelInfo[]>;
}
