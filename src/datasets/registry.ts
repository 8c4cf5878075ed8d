import { Registry } from "../core/registry.js";
import { inlineLoader } from "./inline.js";
import type { DatasetLoader } from "./types.js";

export const datasetLoaders = new Registry<DatasetLoader>("dataset loader");
datasetLoaders.register(inlineLoader.name, inlineLoader);
