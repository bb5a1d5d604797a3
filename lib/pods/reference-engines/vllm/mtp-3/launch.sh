#!/usr/bin/env bash
# Reference speculator (protocol section 11): MTP, Qwen3.5's own multi-token-prediction layers, 3 tokens; vLLM names
# the method "mtp" (qwen3_5_mtp is its deprecated alias) and drafts with the target itself when no model is given,
# on the pinned vLLM (0.25.1).
# The stock engine's command line (lib/pods/stock-engines/vllm/launch.sh) plus --speculative-config, spelled as
# vLLM 0.25's SpeculativeConfig (vllm/config/speculative.py) takes it.
speculative='{"method": "mtp", "num_speculative_tokens": 3}'
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
