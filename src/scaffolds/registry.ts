import { Registry } from "../core/registry.js";
import { directScaffold } from "./direct.js";
import type { Scaffold } from "./types.js";

export const scaffolds = new Registry<Scaffold>("scaffold");
scaffolds.register(directScaffold.name, directScaffold);
