#!/usr/bin/env node
// `npx speculatorarena ...` from the repository: the CLI's source through tsx (the kit ships it bundled instead),
// with the repository's tsconfig (its "@/" paths) from wherever it is run.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register({ tsconfig: fileURLToPath(new URL("../../../tsconfig.json", import.meta.url)) });
await import("../main.ts");
