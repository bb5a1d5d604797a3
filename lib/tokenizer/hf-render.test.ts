import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderForScoring } from "@/lib/gates/driver/reply-span";
import { ChatTemplate } from "./chat-template";
import { CASES_FILE, hfRenderCases } from "./fixtures/hf-render/build-cases";
import { qwen3Tokenizer } from "./packaged-qwen3";

/**
 * The arena renders prompts with @huggingface/jinja and cuts them by its own copy of transformers' rule; a real vLLM
 * renders them with Python's Jinja2 through transformers' apply_chat_template and tokenizes the text with the same
 * tokenizer. The committed references were rendered by Python's Jinja2 (fixtures/hf-render/render_hf.py) from the
 * scoring requests the gates build of dev-pool conversations: where the texts agree, so do the token ids vLLM checks
 * prompt_logprobs against, for the open (continue_final_message) and the closed scoring requests and the timed ones.
 */
const cases = JSON.parse(readFileSync(CASES_FILE, "utf8")).cases as ReturnType<typeof hfRenderCases>;
const reference = JSON.parse(readFileSync(CASES_FILE.replace(/cases\.json$/, "reference.json"), "utf8")) as {
  jinja2: string;
  renderings: { id: string; closed: string; open: string; generation: string }[];
};
const tokenizer = qwen3Tokenizer();
const template = new ChatTemplate(tokenizer);

describe("the Qwen3 template as Python's Jinja2 renders it for vLLM", () => {
  it("is rendered from the scoring requests the gates build today, with tools, tool results and awkward replies", () => {
    expect(cases).toEqual(JSON.parse(JSON.stringify(hfRenderCases())));
    expect(reference.renderings.map((r) => r.id)).toEqual(cases.map((c) => c.id));
    expect(cases.some((c) => c.tools !== null)).toBe(true);
    expect(cases.some((c) => c.messages.some((m) => m.role === "tool"))).toBe(true);
    expect(cases.some((c) => c.messages.at(-1)!.content.includes("</think>"))).toBe(true);
  });

  it("renders every case as transformers does: the closed chat, the chat continued after its reply, and the timed prompt", () => {
    const differ: string[] = [];
    for (const [i, c] of cases.entries()) {
      const ref = reference.renderings[i]!;
      const tools = c.tools ?? undefined;
      const closed = template.render(c.messages, { tools, addGenerationPrompt: false, enableThinking: false });
      const open = renderForScoring(c.messages, tools, template, tokenizer);
      const generation = template.render(c.messages.slice(0, -1), {
        tools,
        addGenerationPrompt: true,
        enableThinking: false,
      });
      if (closed !== ref.closed) differ.push(`${c.id}: closed`);
      if (open.text !== ref.open) differ.push(`${c.id}: open`);
      if (generation !== ref.generation) differ.push(`${c.id}: generation`);
    }
    expect(differ).toEqual([]);
  });
});
