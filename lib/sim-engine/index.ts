export { type AttackStrengths, MAX_TOP_K_OVERRIDE, strengthsProblem } from "./attack-strengths";
export { defaultToyModel, type ToyModel } from "./model/toy-model";
export { ATTACK_MODES, HONEST_MODES, MODES, type Mode } from "./modes";
export {
  ACTIVATION_PEAK_MIB,
  CUDA_CONTEXT_MIB,
  DEVICE_TOTAL_MIB,
  planMemory,
  TARGET_WEIGHTS_MIB,
} from "./scheduler/device";
export { readSpeculatorFile, type SimEngine, type SimEngineOptions, startSimEngine } from "./sim-engine";
export { SIM_ENGINE_BIN, SIM_ENGINE_DIRS, type SpawnedSimEngine, type SpawnOptions, spawnSimEngine } from "./spawn";
