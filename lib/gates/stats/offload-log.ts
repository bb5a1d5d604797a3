/** What a start-up log line reports: weights or KV blocks placed in host memory. */
export interface OffloadFinding {
  kind: "weights" | "kv";
  line: string;
  what: string;
}

interface Rule {
  kind: OffloadFinding["kind"];
  what: string;
  /** The first capture group, when present, is an amount: the line reports offload only when it is above 0. */
  pattern: RegExp;
}

// vLLM prints its non-default arguments and engine config at start-up (`cpu_offload_gb: 8`, `--cpu-offload-gb 8`,
// `kv_offloading_size=16`, `swap_space: 4`, `# CPU blocks: 2048`, `kv_transfer_config` naming an offloading
// connector). Keys appear in snake_case, as CLI flags, or quoted in a printed dict.
const KEY = (name: string) => `(?:--)?${name.replaceAll("_", "[_-]")}['"]?\\s*[:=]?\\s*['"]?`;
const NUM = "(\\d+(?:\\.\\d+)?)";

const RULES: Rule[] = [
  {
    kind: "weights",
    what: "weights offloaded to host memory (cpu_offload_gb)",
    pattern: new RegExp(`${KEY("cpu_offload_gb")}${NUM}`, "i"),
  },
  {
    kind: "weights",
    what: "weights offloaded to host memory (offload_group_size)",
    pattern: new RegExp(`${KEY("offload_group_size")}${NUM}`, "i"),
  },
  {
    kind: "weights",
    what: "weights offloaded to host memory (offload_num_in_group)",
    pattern: new RegExp(`${KEY("offload_num_in_group")}${NUM}`, "i"),
  },
  {
    kind: "kv",
    what: "KV blocks offloaded to host memory (kv_offloading_size)",
    pattern: new RegExp(`${KEY("kv_offloading_size")}${NUM}`, "i"),
  },
  // swap_space has a non-zero default in vLLM's config dumps, so only a flag or a non-default argument counts.
  {
    kind: "kv",
    what: "KV blocks swapped to host memory (swap_space)",
    pattern: new RegExp(`(?:non-default args.*['"]swap_space['"]\\s*:\\s*|--swap-space[ =]\\s*)${NUM}`, "i"),
  },
  {
    kind: "kv",
    what: "KV blocks in host memory (CPU blocks)",
    pattern: new RegExp(`#?\\s*CPU blocks\\s*[:=]\\s*${NUM}`, "i"),
  },
  {
    kind: "kv",
    what: "KV blocks in host memory (CPU KV cache)",
    pattern: new RegExp(`CPU KV cache size\\s*[:=]\\s*${NUM}`, "i"),
  },
  {
    kind: "kv",
    what: "KV blocks offloaded through a KV connector",
    pattern: /\b(?:OffloadingConnector|LMCacheConnector\w*|CPUOffloadingSpec|SimpleCPUOffloadConnector)\b/,
  },
  {
    kind: "kv",
    what: "KV blocks offloaded to host memory (kv_offloading_backend)",
    pattern: /kv[_-]offloading[_-]backend['"]?\s*[:=]?\s*['"]?(?!none\b|null\b)[a-z]/i,
  },
];

/** Start-up log lines that report weights or KV blocks in host memory; empty when none do. */
export function findOffload(logLines: readonly string[]): OffloadFinding[] {
  const found: OffloadFinding[] = [];
  for (const raw of logLines) {
    const line = raw.trim();
    for (const rule of RULES) {
      const m = rule.pattern.exec(line);
      if (!m) continue;
      const amount = m[1];
      if (amount !== undefined && !(Number(amount) > 0)) continue;
      found.push({ kind: rule.kind, what: rule.what, line: line.slice(0, 500) });
    }
  }
  return found;
}
