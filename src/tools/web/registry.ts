import type { z } from "zod";
import { Registry } from "../../core/registry.js";
import { BraveWebSettings, createBraveWeb } from "./brave.js";
import { createOfflineWeb, OfflineWebSettings, offlineWebFolder, outsideFolderProblem } from "./offline.js";
import type { WebBackend } from "./types.js";

/** A web backend as the spec's `agents.web.backend` names it: its settings schema and constructor. */
export interface WebBackendDescriptor {
  name: string;
  description: string;
  settingsSchema: z.ZodType;
  /** Builds the backend from checked settings; relative paths are resolved against `specDir`. */
  create(settings: unknown, context: { specDir: string; env?: NodeJS.ProcessEnv }): WebBackend;
  /** Problems of checked settings against the spec's folder, each at a settings key. */
  specProblems?(settings: unknown, context: { specDir: string }): { key: string; message: string }[];
}

export const webBackends = new Registry<WebBackendDescriptor>("web backend");
webBackends.register("offline", {
  name: "offline",
  description: "A local folder of documents, searched by term overlap (tests, demos, no internet)",
  settingsSchema: OfflineWebSettings,
  create: (settings, { specDir }) => createOfflineWeb(offlineWebFolder(settings, specDir)),
  specProblems(settings, { specDir }) {
    const { folder, allow_outside } = OfflineWebSettings.parse(settings);
    const message = outsideFolderProblem(folder, allow_outside, specDir);
    return message ? [{ key: "folder", message }] : [];
  },
});
webBackends.register("brave", {
  name: "brave",
  description: "Brave Search API for web_search, HTTP(S) for web_fetch; the API key from the environment",
  settingsSchema: BraveWebSettings,
  create: (settings, { env }) => createBraveWeb(BraveWebSettings.parse(settings), env),
});
