#!/usr/bin/env bash
# Reference speculator (protocol section 11): the draft model Qwen3-0.6B (sealed in $SPECULATOR), 4 tokens, on the
# pinned vLLM (0.25.1).
# The stock engine's command line (lib/pods/stock-engines/vllm/launch.sh) plus --speculative-config, spelled as
# vLLM 0.25's SpeculativeConfig (vllm/config/speculative.py) takes it.
# $SPECULATOR is the arena's own path (no quote or backslash in it), so it can stand in the JSON as it is.
speculative="{\"method\": \"draft_model\", \"model\": \"$SPECULATOR\", \"num_speculative_tokens\": 4}"
case "$1" in
  serve)
    exec vllm serve "$TARGET" --tokenizer "$TOKENIZER" --served-model-name "$SERVED_NAME" \
      --host 127.0.0.1 --port "$PORT" --dtype bfloat16 --enable-prefix-caching \
      --max-model-len "$MAX_MODEL_LEN" --max-num-seqs "$MAX_NUM_SEQS" \
      --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" --seed 0 --enable-prompt-tokens-details \
      ${GENERATION_CONFIG:+--generation-config "$GENERATION_CONFIG"} \
      ${LANGUAGE_MODEL_ONLY:+--language-model-only} \
      --speculative-config "$speculative"
    ;;
  *)
    echo "usage: launch.sh serve" >&2
    exit 2
    ;;
esac
