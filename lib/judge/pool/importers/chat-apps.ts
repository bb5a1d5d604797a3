import type { RawApp } from "./raw";

/**
 * The chat apps' shared system prompts. The chat datasets carry none, so these are the arena's own short prompts in
 * the style of public assistant frameworks (FastChat's default assistant prompt), one per app.
 */
export const CHAT_APP: RawApp = {
  id: "chat-assistant",
  family: "chat",
  systemPrompt:
    "A chat between a curious user and an artificial intelligence assistant. The assistant gives helpful, detailed, and polite answers to the user's questions. Answer in the user's language, keep a friendly tone, and format code, lists, and tables in Markdown when that helps.",
  tools: [],
  source: "arena (FastChat-style assistant prompt)",
  license: "Apache-2.0",
};

export const TASKS_APP: RawApp = {
  id: "chat-tasks",
  family: "chat",
  systemPrompt:
    "You are a helpful assistant for everyday work: translating, summarizing documents, answering questions from provided context, and solving math word problems step by step. When context is provided, rely on it; when a question is ambiguous, say what you assumed.",
  tools: [],
  source: "arena (assistant prompt for Spec-Bench's task mix)",
  license: "Apache-2.0",
};
