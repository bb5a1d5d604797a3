/** A minimal OpenAI-style client for the tests and the benchmark (real HTTP over loopback). */

export interface ChatResult {
  status: number;
  body: Record<string, unknown>;
}

export async function postChat(url: string, body: Record<string, unknown>): Promise<ChatResult> {
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/**
 * How often each reply text came back over `samples` requests of `body`, one per seed 0..samples-1, `concurrency` in
 * flight: the empirical distribution the engine samples from at the body's context.
 */
export async function replyCounts(
  url: string,
  body: Record<string, unknown>,
  samples: number,
  concurrency: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < samples) {
      const seed = next++;
      const r = await postChat(url, { ...body, seed });
      const text = (r.body.choices as { message: { content: string } }[])[0]!.message.content;
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return counts;
}

/** The log-probability the engine gives each token of the rendered `messages` after the first (prompt_logprobs). */
export async function promptLogprobs(url: string, messages: Record<string, unknown>[]): Promise<number[]> {
  const r = await postChat(url, {
    messages,
    prompt_logprobs: 0,
    continue_final_message: true,
    add_generation_prompt: false,
    max_tokens: 1,
  });
  return (r.body.prompt_logprobs as (Record<string, { logprob: number }> | null)[])
    .slice(1)
    .map((x) => Object.values(x!)[0]!.logprob);
}

export interface StreamResult {
  status: number;
  /** Every `data:` payload, in order, `[DONE]` included as the string. */
  events: (Record<string, unknown> | "[DONE]")[];
  text: string;
  raw: string;
}

export async function streamChat(url: string, body: Record<string, unknown>): Promise<StreamResult> {
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const raw = await r.text();
  const events: StreamResult["events"] = [];
  let text = "";
  for (const block of raw.split("\n\n")) {
    if (!block.startsWith("data: ")) continue;
    const data = block.slice(6);
    if (data === "[DONE]") {
      events.push("[DONE]");
      continue;
    }
    const ev = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
    text += ev.choices?.[0]?.delta?.content ?? "";
    events.push(ev as Record<string, unknown>);
  }
  return { status: r.status, events, text, raw };
}

export async function metricValue(url: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([^{ ]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m && m[1] === name && (labels === "" || m[2]!.includes(labels))) return Number(m[3]);
  }
  throw new Error(`metric ${name}{${labels}} not found`);
}
