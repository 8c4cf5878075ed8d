/**
 * foldedText (src/core/folded-text.ts) replaces only the whitespace runs that are not already one
 * space. Its result must be the plain definition's (every run replaced by one space, trimmed, lower
 * case) on any text: the propagation audit, the simulated panel and the exemplar overlap check all
 * compare texts through it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { foldedText } from "../../src/core/folded-text.js";
import { seededRandom } from "../../src/stats/random.js";

const plainFold = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

// Every kind of whitespace JavaScript's \s knows, beside letters of both cases and other scripts.
const PIECES = [
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u3000",
  "\ufeff",
].concat(["a", "B", "word", "Ωμέγα", "İ", "ß", "Σ", "x.y", "ünï", "日本", "😀"]);

describe("foldedText", () => {
  it("gives the plain definition's result on spaced, cased and mixed texts", () => {
    const cases = [
      "",
      " ",
      "  ",
      "\n",
      "a",
      " a ",
      "a  b",
      "a\tb",
      "a \n b",
      "\n\nA\n",
      "ΟΔΟΣ ΟΔΟΣ",
      "İstanbul  Şehir",
    ];
    for (const text of cases) assert.equal(foldedText(text), plainFold(text), JSON.stringify(text));
  });

  it("gives the plain definition's result on 20,000 random texts", () => {
    const random = seededRandom(20261130);
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = random.int(14);
      for (let k = 0; k < length; k++) text += PIECES[random.int(PIECES.length)];
      assert.equal(foldedText(text), plainFold(text), `text ${n}: ${JSON.stringify(text)}`);
    }
  });

  it("returns a text that needs no change as it is", () => {
    assert.equal(foldedText("already folded text"), "already folded text");
  });
});
