/**
 * The simulated panel's answer key (the items given through `observeItems`) and how a prompt is
 * matched to its item: by the question text, a quoted question, a persona item's question proper,
 * or, for a perturbed question, by the share of its words the prompt shows.
 */
import type { Item } from "../../contracts/item.js";
import { itemDifficulty } from "./draws.js";
import { ContainedKeys } from "./contained-keys.js";
import { foldedText } from "../../core/folded-text.js";
import { splitPersona } from "./text.js";
import { type WordRun, WordSets } from "./word-sets.js";

export interface KeyEntry {
  item: Item;
  difficulty: number;
}

export class AnswerKey {
  private readonly byQuestion = new Map<string, KeyEntry>();
  /** Every observed item, in order. */
  private readonly entries: KeyEntry[] = [];
  /**
   * Each item's stem and option words, to recognise a perturbed (reworded, recased) question; built
   * when a prompt first quotes no item.
   */
  private byWords?: { words: WordSets; texts: { entry: KeyEntry; stem: WordRun; options: WordRun }[] };
  /** The stems, and persona items' questions proper, as searchable keys; each built when first needed. */
  private stems?: Quoted;
  private questions?: Quoted;

  /** Whether the key holds exactly these items, in this order (the same item objects). */
  holds(items: readonly Item[]): boolean {
    return items.length === this.entries.length && items.every((item, i) => this.entries[i].item === item);
  }

  /** The observed items, in order. */
  items(): Item[] {
    return this.entries.map((entry) => entry.item);
  }

  observe(items: readonly Item[]): void {
    for (const item of items) {
      const entry = { item, difficulty: itemDifficulty(item) };
      this.byQuestion.set(foldedText(item.stem), entry);
      this.entries.push(entry);
    }
    this.byWords = undefined;
    this.stems = undefined;
    this.questions = undefined;
  }

  /** The item a prompt asks about, if any. */
  find(prompt: string): KeyEntry | undefined {
    const match = /Question:\s*([\s\S]*?)(?:\n\s*\n|\n[A-Z][.)]\s|$)/.exec(prompt);
    if (match) {
      const entry = this.byQuestion.get(foldedText(match[1]));
      if (entry) return entry;
    }
    // Sub-calls of scaffolds may quote the question without the "Question:" label.
    const flat = foldedText(prompt);
    this.stems ??= { keys: new ContainedKeys([...this.byQuestion.keys()]), entries: [...this.byQuestion.values()] };
    const quoted = quotedIn(this.stems, flat);
    if (quoted) return quoted;
    // Decomposition sub-tasks of persona items quote only the question proper.
    this.questions ??= this.personaQuestions();
    return quotedIn(this.questions, flat) ?? this.findReworded(prompt);
  }

  /** Splitting every stem takes about a second at paper scale: done only when a prompt quotes no stem. */
  private personaQuestions(): Quoted {
    const keys: string[] = [];
    const entries: KeyEntry[] = [];
    for (const entry of this.byQuestion.values()) {
      const { persona, question } = splitPersona(entry.item.stem);
      if (persona === "" || question.length < 20) continue;
      keys.push(foldedText(question));
      entries.push(entry);
    }
    return { keys: new ContainedKeys(keys), entries };
  }

  /** The item all of whose options are these texts (a sentence pair scored without a question). */
  findByOptions(texts: readonly string[]): KeyEntry | undefined {
    const wanted = texts.map(foldedText).sort().join("\u0000");
    return this.entries.find((entry) => (entry.item.options ?? []).map(foldedText).sort().join("\u0000") === wanted);
  }

  /**
   * A perturbed question (reworded, recased, restructured): the item whose stem words the prompt
   * shows most of (at least 60%), its option words breaking ties.
   */
  private findReworded(prompt: string): KeyEntry | undefined {
    this.byWords ??= this.wordsOfItems();
    const { words, texts } = this.byWords;
    return words.withShown(prompt, (shownIn) => {
      let best: { entry: KeyEntry; score: number } | undefined;
      for (const { entry, stem, options } of texts) {
        if (stem.length === 0) continue;
        const stemShare = shownIn(stem) / stem.length;
        if (stemShare < 0.6) continue;
        const score = stemShare + (options.length > 0 ? shownIn(options) / options.length / 10 : 0);
        if (!best || score > best.score) best = { entry, score };
      }
      return best?.entry;
    });
  }

  private wordsOfItems(): NonNullable<AnswerKey["byWords"]> {
    const words = new WordSets();
    const texts = this.entries.map((entry) => ({
      entry,
      stem: words.add(entry.item.stem),
      options: words.add((entry.item.options ?? []).join(" ")),
    }));
    return { words, texts };
  }
}

interface Quoted {
  keys: ContainedKeys;
  entries: KeyEntry[];
}

/** The entry of the first key (in the key's order) that `flat` quotes. */
function quotedIn(quoted: Quoted, flat: string): KeyEntry | undefined {
  const i = quoted.keys.first(flat);
  return i < 0 ? undefined : quoted.entries[i];
}

/**
 * Keys built, by the first item they hold: a study's models and judges observe the same items, and
 * a key answers the same whoever asks (its lookups are built lazily from the items alone), so
 * they share one key rather than each building its own indexes (megabytes at paper scale).
 * Weakly held: a key goes with its items.
 */
const built = new WeakMap<Item, AnswerKey[]>();

/** The answer key of these items: one already built for the same item objects in the same order, or a new one. */
export function answerKeyOf(items: readonly Item[]): AnswerKey {
  if (items.length === 0) return new AnswerKey();
  const keys = built.get(items[0]) ?? [];
  const found = keys.find((key) => key.holds(items));
  if (found) return found;
  const key = new AnswerKey();
  key.observe(items);
  keys.push(key);
  built.set(items[0], keys);
  return key;
}
