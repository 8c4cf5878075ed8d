import { Registry } from "../core/registry.js";
import { exactAnswerScorer } from "./exact-answer.js";
import type { Scorer } from "./types.js";

export const scorers = new Registry<Scorer>("scorer");
scorers.register(exactAnswerScorer.name, exactAnswerScorer);
