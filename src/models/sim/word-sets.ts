/**
 * Texts' distinct words as arrays of word ids, for counting how many of a stored text's words
 * another text shows (a perturbed question's match). A Set of strings per text was tens of
 * megabytes for a paper-scale panel; an id array is a few bytes a word.
 */
import { wordsOf } from "./text.js";

export class WordSets {
  private readonly ids = new Map<string, number>();
  /** Marks of the words the current text shows, by id (all zero between calls). */
  private marks = new Uint8Array(0);

  /** The ids of a text's distinct words (as many as wordsOf gives), adding new words. */
  add(text: string): Int32Array {
    const words = wordsOf(text);
    const out = new Int32Array(words.size);
    let i = 0;
    for (const word of words) {
      let id = this.ids.get(word);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(word, id);
      }
      out[i++] = id;
    }
    return out;
  }

  /**
   * Calls `count` with a function giving how many of a stored text's words `text` shows (each
   * word once, as countIn over wordsOf would). Words no stored text has cannot count, so they are
   * skipped.
   */
  withShown<T>(text: string, count: (shownIn: (ids: Int32Array) => number) => T): T {
    if (this.marks.length < this.ids.size) this.marks = new Uint8Array(this.ids.size * 2);
    const marked: number[] = [];
    for (const word of wordsOf(text)) {
      const id = this.ids.get(word);
      if (id === undefined) continue;
      this.marks[id] = 1;
      marked.push(id);
    }
    try {
      return count((ids) => {
        let n = 0;
        for (let i = 0; i < ids.length; i++) n += this.marks[ids[i]];
        return n;
      });
    } finally {
      for (const id of marked) this.marks[id] = 0;
    }
  }
}
