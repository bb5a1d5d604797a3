import { parseArgs } from "node:util";
import { z } from "zod";
import { packDirectory } from "../engine-archive/pack-directory";

/**
 * The participant's client: `npm run client -- submit|status|watch|budget ...`. It speaks the arena's public API
 * only (the same one curl and the submit page use), with the token from SPECULATORARENA_TOKEN.
 */
const usage = `usage:
  npm run client -- submit --task qwen3-8b --split dev --engine DIR [--speculator org/repo@<commit>]
                    [--method TEXT] [--kind eagle3] [--profile smoke] [--wait]
  npm run client -- status <submission id>
  npm run client -- watch <submission id>        (live progress until it ends)
  npm run client -- budget
environment: SPECULATORARENA_URL (default http://localhost:3000), SPECULATORARENA_TOKEN (spa_...)`;

const clientEnv = z
  .object({
    SPECULATORARENA_URL: z.string().url().default("http://localhost:3000"),
    SPECULATORARENA_TOKEN: z.string().startsWith("spa_", "must be an arena token (spa_...)").optional(),
  })
  .parse(process.env);

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function api(path: string, init: RequestInit = {}): Promise<unknown> {
  const token = clientEnv.SPECULATORARENA_TOKEN ?? fail("SPECULATORARENA_TOKEN is not set");
  const response = await fetch(`${clientEnv.SPECULATORARENA_URL}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  const body = (await response.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!response.ok)
    fail(`${response.status} ${body?.error?.code ?? ""}: ${body?.error?.message ?? response.statusText}`);
  return body;
}

/** Follows an evaluation to its end; true when it scored above 0 (a scored 0 comes with its reason: a failure). */
async function watch(id: string): Promise<boolean> {
  const response = await fetch(`${clientEnv.SPECULATORARENA_URL}/api/submissions/${id}/events`);
  if (!response.ok || !response.body) fail(`events: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  let final = "unknown";
  let zeroReason: unknown = null;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf("\n\n");
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || !data) continue;
      const d = JSON.parse(data) as Record<string, unknown>;
      if (event === "status") {
        final = String(d.status);
        zeroReason = d.reason ?? null;
        console.log(`status ${d.status}${d.reason ? `: ${d.reason}` : ""}`);
      } else if (event === "phase") console.log(`phase ${d.phase}`);
      else if (event === "pass-ended")
        console.log(`  ${d.engine} ${d.workload} pass ${Number(d.pass) + 1}: ${Number(d.speed).toFixed(1)} tok/s`);
      else if (event === "engine" && d.state !== "stopping") console.log(`  ${d.engine} engine ${d.state}`);
    }
  }
  return final === "scored" && !zeroReason;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    task: { type: "string" },
    split: { type: "string", default: "dev" },
    engine: { type: "string" },
    speculator: { type: "string" },
    method: { type: "string" },
    kind: { type: "string", default: "other" },
    profile: { type: "string" },
    wait: { type: "boolean", default: false },
  },
});

const [command, id] = positionals;
if (command === "submit") {
  if (!values.task || !values.engine) fail(usage);
  const inline = (await packDirectory(values.engine)).toString("base64");
  const [uri, revision] = values.speculator ? values.speculator.split("@") : [];
  const created = (await api("/api/submissions", {
    method: "POST",
    body: JSON.stringify({
      task_id: values.task,
      split: values.split,
      ...(uri ? { speculator: { uri, revision } } : {}),
      engine: { inline },
      solution: { kind: values.kind, ...(values.method ? { method: values.method } : {}) },
      ...(values.profile ? { profile: values.profile } : {}),
    }),
  })) as { id: string };
  console.log(`submitted ${created.id}: ${clientEnv.SPECULATORARENA_URL}/evaluations/${created.id}`);
  if (values.wait) process.exit((await watch(created.id)) ? 0 : 1);
} else if (command === "status" && id) {
  console.log(JSON.stringify(await api(`/api/submissions/${id}`), null, 2));
} else if (command === "watch" && id) {
  process.exit((await watch(id)) ? 0 : 1);
} else if (command === "budget") {
  console.log(JSON.stringify(await api("/api/budget"), null, 2));
} else {
  fail(usage);
}
