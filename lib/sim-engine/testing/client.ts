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
