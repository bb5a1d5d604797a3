/** The bundle's entry point, run as `<dir>/node <dir>/pod-agent.mjs`. */
export const AGENT_BUNDLE_ENTRY = "pod-agent.mjs";

/** The simulated engine's launcher inside a bundle: what ARENA_SIM_ENGINE names there. */
export const BUNDLED_SIM_ENGINE = "sim-engine/sim-engine";
