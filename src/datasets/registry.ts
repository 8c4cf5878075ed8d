import { Registry } from "../core/registry.js";
import { inlineLoader } from "./inline.js";
import { anthropicSelfAwarenessLoader } from "./loaders/anthropic-self-awareness.js";
import { anthropicSycophancyLoader } from "./loaders/anthropic-sycophancy.js";
import { bbqLoader } from "./loaders/bbq.js";
import { crowsPairsLoader } from "./loaders/crows-pairs.js";
import { gaiaLoader } from "./loaders/gaia.js";
import { mmluLoader } from "./loaders/mmlu.js";
import { orBenchLoader } from "./loaders/or-bench.js";
import { toxigenLoader } from "./loaders/toxigen.js";
import { truthfulqaGenLoader } from "./loaders/truthfulqa-gen.js";
import { truthfulqaMc1Loader } from "./loaders/truthfulqa-mc1.js";
import { truthfulqaMc2Loader } from "./loaders/truthfulqa-mc2.js";
import { xstestLoader } from "./loaders/xstest.js";
import type { DatasetLoader } from "./types.js";

export const datasetLoaders = new Registry<DatasetLoader>("dataset loader");
for (const loader of [
  inlineLoader,
  truthfulqaMc1Loader,
  truthfulqaMc2Loader,
  truthfulqaGenLoader,
  bbqLoader,
  xstestLoader,
  orBenchLoader,
  anthropicSycophancyLoader,
  anthropicSelfAwarenessLoader,
  mmluLoader,
  toxigenLoader,
  crowsPairsLoader,
  gaiaLoader,
]) {
  datasetLoaders.register(loader.name, loader);
}
