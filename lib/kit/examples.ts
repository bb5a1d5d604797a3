/**
 * The engine directories the guide prints and the kit ships (`examples/<name>/launch.sh`): one source for both, so
 * what a participant reads is what they run.
 */
export interface ExampleEngine {
  name: string;
  title: string;
  launch: string;
}

/** vLLM with an EAGLE-3 speculator: the stock engine's command line (lib/pods/stock-engines/vllm) plus its speculative config. */
export const VLLM_EAGLE3_LAUNCH = `#!/usr/bin/env bash
# SpeculatorArena engine directory: the pinned vLLM (0.25.1) serving the sealed target in BF16, unchanged, with the
# EAGLE-3 speculator the arena fetched from the Hub at your commit ($SPECULATOR), 4 draft tokens.
# Every value comes from the arena's environment (protocol section 3): no fixed path, port or memory share.
case "$1" in
  serve)
    # $SPECULATOR is the arena's own path (no quote or backslash in it), so it can stand in the JSON as it is
    speculative="{\\"method\\": \\"eagle3\\", \\"model\\": \\"$SPECULATOR\\", \\"num_speculative_tokens\\": 4}"
    # exec: the server is the process the arena stops (SIGTERM to the group, SIGKILL 120 s later)
    exec vllm serve "$TARGET" --tokenizer "$TOKENIZER" --served-model-name "$SERVED_NAME" \\
      --host 127.0.0.1 --port "$PORT" --dtype bfloat16 --enable-prefix-caching \\
      --max-model-len "$MAX_MODEL_LEN" --max-num-seqs "$MAX_NUM_SEQS" \\
      --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" --seed 0 --enable-prompt-tokens-details \\
      \${GENERATION_CONFIG:+--generation-config "$GENERATION_CONFIG"} \\
      \${LANGUAGE_MODEL_ONLY:+--language-model-only} \\
      --speculative-config "$speculative"
    ;;
  *)
    echo "usage: launch.sh serve" >&2
    exit 2
    ;;
esac
`;

/** The simulated engine with its EAGLE-like speculator: what the local kit plays where there is no GPU. */
export const SIM_EAGLE_LAUNCH = `#!/usr/bin/env bash
# The simulated engine (an honest OpenAI-compatible server over a toy target) with its EAGLE-like speculator, 3
# tokens: try the local kit and the clients without a GPU. $ARENA_SIM_ENGINE is set by the kit and the arena's
# embedded default.
case "$1" in
  serve) exec "$ARENA_SIM_ENGINE" serve --mode eagle ;;
  *) echo "usage: launch.sh serve" >&2; exit 2 ;;
esac
`;

/** The simulated engine serving a perturbed target, as FP8 weights would: the fidelity check fails it. */
export const SIM_QUANTIZED_LAUNCH = `#!/usr/bin/env bash
# A cheating engine, to see a FAIL: the simulated engine serves a perturbed target, as FP8 weights would, and the
# lossless gate's fixed-text check catches it.
case "$1" in
  serve) exec "$ARENA_SIM_ENGINE" serve --mode quantized ;;
  *) echo "usage: launch.sh serve" >&2; exit 2 ;;
esac
`;

export const EXAMPLE_ENGINES: readonly ExampleEngine[] = [
  { name: "vllm-eagle3", title: "vLLM with an EAGLE-3 speculator", launch: VLLM_EAGLE3_LAUNCH },
  { name: "sim-eagle", title: "the simulated engine, honest", launch: SIM_EAGLE_LAUNCH },
  { name: "sim-quantized", title: "the simulated engine, cheating", launch: SIM_QUANTIZED_LAUNCH },
];
