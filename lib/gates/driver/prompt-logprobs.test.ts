import { describe, expect, it } from "vitest";
import { parsePromptLogprobsResponse, promptTokenScores } from "./prompt-logprobs";
import { summarize } from "./score-texts";

// vLLM's shape: null first, then per position the prompt token (and the top choices asked for) by id.
const response = parsePromptLogprobsResponse({
  id: "chatcmpl-1",
  choices: [{ index: 0, message: { role: "assistant", content: "x" } }],
  prompt_logprobs: [
    null,
    { "11": { logprob: -0.5, rank: 1, decoded_token: "a" } },
    { "12": { logprob: -2.25, rank: 3, decoded_token: "b" }, "99": { logprob: -0.1, rank: 1, decoded_token: "z" } },
    { "13": { logprob: -0.125, rank: 1, decoded_token: "c" } },
  ],
});

describe("promptTokenScores", () => {
  it("reads each prompt token's log-probability and rank by its id", () => {
    expect(promptTokenScores(response, [10, 11, 12, 13], 2)).toEqual([
      { logprob: -2.25, rank: 3 },
      { logprob: -0.125, rank: 1 },
    ]);
    expect(summarize(promptTokenScores(response, [10, 11, 12, 13], 1))).toEqual({
      tokens: 3,
      logprobSum: -2.875,
      notFirstChoice: 1,
    });
  });

  it("refuses positions that do not line up with the prompt", () => {
    expect(() => promptTokenScores(response, [10, 11, 12], 1)).toThrow(/4 positions for a prompt of 3/);
    expect(() => promptTokenScores(response, [10, 11, 77, 13], 1)).toThrow(/position 2 has no entry for token 77/);
    expect(() => promptTokenScores(response, [10, 11, 12, 13], 0)).toThrow(/first prompt token/);
    const withIds = { ...response, prompt_token_ids: [10, 11, 12, 14] };
    expect(() => promptTokenScores(withIds, [10, 11, 12, 13], 1)).toThrow(/tokenized the prompt differently/);
  });

  it("refuses a missing rank when first choices are counted", () => {
    const noRank = parsePromptLogprobsResponse({ prompt_logprobs: [null, { "5": { logprob: -1 } }] });
    expect(() => summarize(promptTokenScores(noRank, [4, 5], 1))).toThrow(/no rank/);
  });

  it("rejects a body without prompt_logprobs, or with an entry of another shape, naming where", () => {
    expect(() => parsePromptLogprobsResponse({ choices: [] })).toThrow(/^the engine's answer: prompt_logprobs: /);
    expect(() => parsePromptLogprobsResponse("nope")).toThrow(/^the engine's answer: body: /);
    expect(() => parsePromptLogprobsResponse({ prompt_logprobs: [null, [1, 2]] })).toThrow(
      "prompt_logprobs[1]: expected an object of token ids, or null",
    );
    expect(() => parsePromptLogprobsResponse({ prompt_logprobs: [null, { "5": -1 }] })).toThrow(
      'prompt_logprobs[1]["5"]: expected an object with a logprob',
    );
    expect(() => parsePromptLogprobsResponse({ prompt_logprobs: [null, { "5": { logprob: "-1" } }] })).toThrow(
      'prompt_logprobs[1]["5"].logprob: expected a number',
    );
    expect(() => parsePromptLogprobsResponse({ prompt_logprobs: [null, { "5": { logprob: -1, rank: 1.5 } }] })).toThrow(
      'prompt_logprobs[1]["5"].rank: expected an integer or null',
    );
    expect(() =>
      parsePromptLogprobsResponse({ prompt_logprobs: [null, { "5": { logprob: -1, decoded_token: 7 } }] }),
    ).toThrow('prompt_logprobs[1]["5"].decoded_token: expected a string or null');
    expect(() => parsePromptLogprobsResponse({ prompt_logprobs: [null], prompt_token_ids: [1.5] })).toThrow(
      /^the engine's answer: prompt_token_ids\.0: /,
    );
  });

  it("accepts vLLM's entries as they come: ranks and decoded tokens null or absent, other fields kept", () => {
    const body = {
      id: "chatcmpl-2",
      prompt_logprobs: [
        null,
        { "5": { logprob: -1, rank: null, decoded_token: null, extra: 1 } },
        { "6": { logprob: 0 } },
      ],
      prompt_token_ids: null,
    };
    expect(parsePromptLogprobsResponse(body).prompt_logprobs).toEqual(body.prompt_logprobs);
  });
});
