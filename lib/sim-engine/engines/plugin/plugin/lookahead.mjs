// A simulated engine plugin: registers the "lookahead" drafter, prompt lookup drafting 6 tokens a step.
export function register(engine) {
  engine.registerDrafter("lookahead", { method: "ngram", k: 6 });
}
