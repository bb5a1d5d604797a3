// The broken twin of engines/plugin: it needs a package the engine does not carry, so it cannot be installed.
import { lookahead } from "sim-lookahead-kernels";

export function register(engine) {
  engine.registerDrafter("lookahead", lookahead);
}
