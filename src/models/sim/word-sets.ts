/**
 * Texts' distinct words as runs of word ids in one array, for counting how many of a stored
 * text's words another text shows (a perturbed question's match). A Set of strings per text was
 * tens of megabytes for a paper-scale panel; an id is four bytes.
 */
import { wordsOf } from "./text.js";

/** A stored text: where its word ids start in the shared array, and how many there are. */
export interface WordRun {
  start: number;
  length: number;
}

export class WordSets {
  private readonly ids = new Map<string, number>();
  private words = new Int32Array(1024);
  private used = 0;
  /** Marks of the words the current text shows, by id (all zero between calls). */
  private marks = new Uint8Array(0);

  /** Stores a text's distinct words (as many as wordsOf gives), adding new words to the vocabulary. */
  add(text: string): WordRun {
    const distinct = wordsOf(text);
    if (this.used + distinct.size > this.words.length) {
      const grown = new Int32Array(Math.max(this.words.length * 2, this.used + distinct.size));
      grown.set(this.words.subarray(0, this.used));
      this.words = grown;
    }
    const start = this.used;
    for (const word of distinct) {
      let id = this.ids.get(word);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(word, id);
      }
      this.words[this.used++] = id;
    }
    return { start, length: distinct.size };
  }

  /**
   * Calls `count` with a function giving how many of a stored text's words `text` shows (each
   * word once, as countIn over wordsOf would). Words no stored text has cannot count, so they are
   * skipped.
   */
  withShown<T>(text: string, count: (shownIn: (run: WordRun) => number) => T): T {
    if (this.marks.length < this.ids.size) this.marks = new Uint8Array(this.ids.size * 2);
    const marked: number[] = [];
    for (const word of wordsOf(text)) {
      const id = this.ids.get(word);
      if (id === undefined) continue;
      this.marks[id] = 1;
      marked.push(id);
    }
    try {
      return count(({ start, length }) => {
        let n = 0;
        for (let i = start; i < start + length; i++) n += this.marks[this.words[i]];
        return n;
      });
    } finally {
      for (const id of marked) this.marks[id] = 0;
    }
  }
}
