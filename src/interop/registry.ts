/** The importers of `parallax import FORMAT`, one file each in importers/. */
import { Registry } from "../core/registry.js";
import { eeeImporter } from "./importers/eee.js";
import { helmImporter } from "./importers/helm.js";
import { inspectImporter } from "./importers/inspect.js";
import { lmEvalImporter } from "./importers/lm-eval.js";
import { parquetImporter } from "./importers/parquet.js";
import type { Importer } from "./types.js";

export const importers = new Registry<Importer>("importer");
for (const importer of [inspectImporter, lmEvalImporter, helmImporter, eeeImporter, parquetImporter])
  importers.register(importer.name, importer);
