/** The bundle's entry point, run as `<dir>/node <dir>/pod-agent.mjs`. */
export const AGENT_BUNDLE_ENTRY = "pod-agent.mjs";

/** The simulated engine's launcher inside a bundle: what ARENA_SIM_ENGINE names there. */
export const BUNDLED_SIM_ENGINE = "sim-engine/sim-engine";

/** The simulated engine's module in a bundle's `sim-engine/` folder, and in the repository's own bundle. */
export const SIM_ENGINE_MODULE = "sim-engine.mjs";

/** The repository's bundled simulated engine (relative to it), as lib/sim-engine/bin/sim-engine looks for it. */
export const REPO_SIM_ENGINE_BUNDLE = ".build/sim-engine";

/** The repository's bundled pod agent (relative to it), which local pods run while it is fresh (repo-agent.ts). */
export const REPO_AGENT_BUNDLE = ".build/repo-pod-agent";
