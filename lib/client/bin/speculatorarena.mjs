#!/usr/bin/env node
// `npx speculatorarena ...` from the repository: the bundle `npm test` builds while it is fresh (client-entry.mjs), one
// module where the sources through tsx load a hundred (0.22 s of CPU a start against 1.0 here); else the CLI's source
// through tsx (the kit ships it bundled instead), with the repository's tsconfig (its "@/" paths) from wherever it is run.
import { fileURLToPath } from "node:url";
import { bundledClientEntry } from "./client-entry.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bundle = bundledClientEntry(root, process.argv[2]);
if (bundle) {
  await import(bundle);
} else {
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: fileURLToPath(new URL("../../../tsconfig.json", import.meta.url)) });
  await import("../main.ts");
}
