#!/usr/bin/env bash
# The stock engine: the pinned vLLM with prefix caching, BF16, the same memory share, no speculation.
case "$1" in
  serve)
    exec vllm serve "$TARGET" --tokenizer "$TOKENIZER" --served-model-name "$SERVED_NAME" \
      --host 127.0.0.1 --port "$PORT" --dtype bfloat16 \
      --max-model-len "$MAX_MODEL_LEN" --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" \
      --max-num-seqs "$MAX_NUM_SEQS" --enable-prefix-caching --seed 0 \
      ${GENERATION_CONFIG:+--generation-config "$GENERATION_CONFIG"} \
      ${LANGUAGE_MODEL_ONLY:+--language-model-only}
    ;;
  *)
    echo "usage: launch.sh serve" >&2
    exit 2
    ;;
esac
