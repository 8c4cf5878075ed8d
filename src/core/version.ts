import { readFileSync } from "node:fs";

/** The package version, read once from package.json (two levels up from src/core or dist/core). */
export const PARALLAX_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
