import { Registry } from "../core/registry.js";
import { bashTool } from "./bash.js";
import { pythonTool } from "./python.js";
import { submitAnswerTool } from "./submit-answer.js";
import { submitVerdictTool } from "./submit-verdict.js";
import { textEditorTool } from "./text-editor.js";
import type { AnyTool } from "./types.js";
import { webBrowserTool } from "./web-browser.js";
import { webFetchTool } from "./web-fetch.js";
import { webSearchTool } from "./web-search.js";

/** The agent tools, one file each; a scaffold offers a subset by name. */
export const tools = new Registry<AnyTool>("tool");
for (const tool of [
  bashTool,
  pythonTool,
  textEditorTool,
  webSearchTool,
  webFetchTool,
  submitAnswerTool,
  submitVerdictTool,
  webBrowserTool,
]) {
  tools.register(tool.name, tool);
}
