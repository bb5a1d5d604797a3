import { openTargetTokens, type TargetTokens } from "../../judge";
import { checkTokenizerDir } from "../../tokenizer/target-tokenizer";
import type { AgentEvent } from "./events";

/** The target's tokenizer could not be loaded: the pod is void (the arena's fault), whatever its engines did. */
export class UnusableTokenizer extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

export interface TargetTokensLoader {
  /** Checks the directory's files (milliseconds): the error when a file is missing or unreadable, else null. */
  check(): Error | null;
  /** Starts loading (once; seconds: the tokenizer, its chat template, the counter's worker) and settles with it. */
  load(): Promise<TargetTokens | Error>;
  /** The loaded tokens, loading them first if need be; throws UnusableTokenizer when they cannot be loaded. */
  ready(): Promise<TargetTokens>;
  /** The pod's end for a target without a usable tokenizer: the operators' log, then a void result. */
  voidPod(error: Error): void;
  /** Closes the counter, when one was loaded. */
  close(): Promise<void>;
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/**
 * The target's tokenizer for the pod: its files checked before any engine starts, and its loading begun when the
 * caller says (while the candidate engine starts, so that the seconds it takes are not the pod's alone).
 */
export function targetTokensLoader(dir: string, emit: (event: AgentEvent) => void): TargetTokensLoader {
  let loading: Promise<TargetTokens | Error> | null = null;
  const load = () => {
    loading ??= openTargetTokens(dir).then(
      (tokens) => {
        const { tokenizer } = tokens;
        emit({
          type: "log",
          level: "info",
          message: `counting with the target's tokenizer: ${tokenizer.vocabSize} tokens, sha256 ${tokenizer.fingerprint.slice(0, 16)}`,
        });
        return tokens;
      },
      (error: unknown) => asError(error),
    );
    return loading;
  };
  return {
    check() {
      try {
        checkTokenizerDir(dir);
        return null;
      } catch (error) {
        return asError(error);
      }
    },
    load,
    async ready() {
      const loaded = await load();
      if (loaded instanceof Error) throw new UnusableTokenizer(loaded);
      return loaded;
    },
    voidPod(error) {
      // the operators' fault: the full message (paths included) goes to the operators' log, not the public reason
      emit({ type: "log", level: "error", message: `the target's tokenizer: ${error.message}` });
      emit({ type: "result", outcome: "void", reason: "the task's target has no usable tokenizer", record: null });
    },
    async close() {
      const loaded = loading ? await loading : null;
      if (loaded && !(loaded instanceof Error)) await loaded.counter.close();
    },
  };
}
