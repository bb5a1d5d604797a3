import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ImportResult, RawApp, RawTurn } from "./raw";

/** Aider's prompts live in its Python code (not copied); this is the opening of its main system prompt (Apache-2.0). */
export const AIDER_APP: RawApp = {
  id: "aider",
  family: "agent",
  systemPrompt:
    "Act as an expert software developer.\nAlways use best practices when coding.\nRespect and use existing conventions, libraries, etc that are already present in the code base.\nTake requests for changes to the supplied code.\nIf the request is ambiguous, ask questions.\n\nOnce you understand the request you MUST:\n1. Decide if you need to propose *SEARCH/REPLACE* edits to any files that haven't been added to the chat.\n2. Think step-by-step and explain the needed changes in a few short sentences.\n3. Describe each change with a *SEARCH/REPLACE block*.",
  tools: [],
  source: "aider",
  license: "Apache-2.0 (Aider-AI/aider)",
};

/** Aider's own chat log: `####` lines are the user's, plain lines the assistant's; sessions with two or more user turns. */
export function importAider(dataDir: string, minTurns = 2): ImportResult {
  const text = readFileSync(join(dataDir, "aider/tests/fixtures/chat-history.md"), "utf8");
  const sessions = text.split(/^# aider chat started at /m).slice(1);
  const conversations = [];
  for (const block of sessions) {
    const stamp = block.slice(0, block.indexOf("\n")).trim();
    const turns: RawTurn[] = [];
    let user: string[] = [];
    let reply: string[] = [];
    const flush = () => {
      if (user.length > 0) {
        const content = user.join("\n").trim();
        if (content) turns.push({ role: "user", content, recordedReply: reply.join("\n").trim() || undefined });
      } else if (reply.length > 0 && turns.length > 0) {
        const last = turns[turns.length - 1]!;
        last.recordedReply = [last.recordedReply ?? "", reply.join("\n")].join("\n").trim() || undefined;
      }
      user = [];
      reply = [];
    };
    let inReply = false;
    for (const raw of block.split("\n").slice(1)) {
      const line = raw.replace(/ {2}$/, "");
      if (line.startsWith("####")) {
        if (inReply) {
          flush();
          inReply = false;
        }
        user.push(line.replace(/^#### ?/, ""));
      } else if (line.startsWith(">")) {
        // CLI output between turns: neither the user's text nor the assistant's
      } else if (user.length > 0 || reply.length > 0 || turns.length > 0) {
        if (line.trim() !== "" || inReply) {
          inReply = true;
          reply.push(line);
        }
      }
    }
    flush();
    if (turns.length >= minTurns) {
      conversations.push({
        source: "aider",
        item: `session ${stamp}`,
        app: AIDER_APP.id,
        family: "agent" as const,
        turns,
      });
    }
  }
  return { apps: [AIDER_APP], conversations };
}
