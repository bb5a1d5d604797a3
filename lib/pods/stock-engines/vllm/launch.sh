#!/usr/bin/env bash
# The stock engine (protocol section 4, Pairing): the pinned vLLM (0.25.1) serving $TARGET in BF16 with prefix
# caching, the same memory share as the candidate, and no speculation. Every value comes from section 3's
# environment. --enable-prompt-tokens-details only reports usage.prompt_tokens_details.cached_tokens, from which
# the judge reads the cache hit; it changes nothing the engine computes.
case "$1" in
  serve)
    exec vllm serve "$TARGET" --tokenizer "$TOKENIZER" --served-model-name "$SERVED_NAME" \
      --host 127.0.0.1 --port "$PORT" --dtype bfloat16 --enable-prefix-caching \
      --max-model-len "$MAX_MODEL_LEN" --max-num-seqs "$MAX_NUM_SEQS" \
      --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" --seed 0 --enable-prompt-tokens-details \
      ${GENERATION_CONFIG:+--generation-config "$GENERATION_CONFIG"} \
      ${LANGUAGE_MODEL_ONLY:+--language-model-only}
    ;;
  *)
    echo "usage: launch.sh serve" >&2
    exit 2
    ;;
esac
