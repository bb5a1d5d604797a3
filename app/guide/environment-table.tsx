import { currentProtocol, getProfile, maxNumSeqs, TASK_IDS } from "@/lib/protocol";
import { GuideTable } from "./guide-table";

/** Section 3's environment, with each task's values from the protocol in force. */
export function EnvironmentTable() {
  const protocol = currentProtocol();
  const full = getProfile("full")!;
  const tasks = TASK_IDS.map((id) => protocol.tasks[id]);
  const perTask = (value: (task: (typeof tasks)[number]) => string) =>
    tasks.map((task) => `${value(task)} on ${task.id}`).join(", ");
  const rows: [string, string][] = [
    ["TARGET (and ARTIFACT)", "the sealed target checkpoint, read-only"],
    [
      "SPECULATOR",
      "the sealed speculator checkpoint (its *.json and *.safetensors files), read-only; an empty directory when none was given",
    ],
    ["TOKENIZER, GENERATION_CONFIG", "the target's directory (tokenizer, chat template, generation_config.json)"],
    ["PORT, SERVED_NAME", `serve on 127.0.0.1:$PORT under this name (${perTask((t) => t.target.repository)})`],
    ["MAX_MODEL_LEN", perTask((t) => t.maxModelLen.toLocaleString("en"))],
    [
      "MAX_NUM_SEQS",
      `the most requests any workload keeps in flight: ${perTask((t) => String(maxNumSeqs(t, full)))} (fewer under a test profile)`,
    ],
    [
      "GPU_MEMORY_UTILIZATION",
      `${protocol.engine.gpuMemoryUtilization.toFixed(2)} for the timed passes, ${protocol.engine.checksGpuMemoryUtilization.toFixed(2)} for the checks' restart (room for prompt_logprobs)`,
    ],
    ["PREFIX_CACHING", "1: every workload reuses prefixes, and the engine must keep a prefix cache"],
    [
      "LANGUAGE_MODEL_ONLY",
      `1 on ${tasks
        .filter((t) => t.languageModelOnly)
        .map((t) => t.id)
        .join(", ")}; unset otherwise`,
    ],
    [
      "HOME, TMPDIR",
      "this start's own scratch folder: pip's user site (your plugin), caches; removed after the engine stops",
    ],
    ["USER, LOGNAME", "the unprivileged engine user's name"],
    [
      "HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE",
      "1: there is no network; whatever the engine needs comes in its directory",
    ],
    [
      "PATH, LD_LIBRARY_PATH",
      "the pinned image's (its CUDA and Python); nothing else of the arena's reaches the engine",
    ],
  ];
  return (
    <GuideTable
      caption="The environment of launch.sh serve"
      head={["Variable", "Value"]}
      rows={rows.map(([variable, value]) => ({ key: variable, cells: [<code key="v">{variable}</code>, value] }))}
    />
  );
}
