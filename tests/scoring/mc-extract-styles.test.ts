/**
 * Two answer styles, each as a family, with the near-misses that must stay unparsed (or read
 * as the extractor's rules say):
 * - a noun naming an option before its letter ("Option B", "choice (C)", "answer is letter D"):
 *   an answer when the phrase closes a clause or carries that letter's own option text, never
 *   under a negation, never when a predicate follows ("Option A is a conductor"), and a format-
 *   only form: an explicit answer marker anywhere wins over it;
 * - a bracketed letter closing a sentence of agreement ("I agree with the statement (A)."): the
 *   letter names the stance, whatever the sentence says before it; not a letter in mid-sentence,
 *   not a reference to a part of a text ("point (a)"), not two letters.
 * The nouns, verbs, brackets, markup and closings are crossed, so the whole family is checked,
 * not the strings that first showed the gap.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractMcAnswer } from "../../src/scoring/mc-extract.js";

const LETTERS = ["A", "B", "C", "D"];
const CITY = ["Lyon", "Paris", "Marseille", "Nice"];
const AGREE = ["Agree", "Disagree"];

function read(text: string, options: readonly string[] = CITY, letters: readonly string[] = LETTERS) {
  return extractMcAnswer(text, letters.slice(0, options.length), options);
}

function expectLetter(text: string, expected: string | null, options: readonly string[] = CITY) {
  const got = read(text, options);
  assert.equal(got.letter, expected, `${JSON.stringify(text)}: read ${got.letter} (${got.marker})`);
}

describe("a noun naming an option, then its letter", () => {
  const nouns = ["Option", "option", "Choice", "choice", "Letter", "Alternative", "answer option", "Answer choice"];
  const letterForms = [(l: string) => l, (l: string) => `(${l})`, (l: string) => `**${l}**`, (l: string) => `[${l}]`];
  const frames = [
    (phrase: string) => phrase,
    (phrase: string) => `${phrase}.`,
    (phrase: string) => `**${phrase}**`,
    (phrase: string) => `So it's ${phrase}.`,
    (phrase: string) => `After weighing the cities, I'd say ${phrase}!`,
    (phrase: string) => `The seat of parliament is in the capital.\n\nTherefore ${phrase}`,
    (phrase: string) => `That would be ${phrase}; the others are regional cities.`,
  ];

  test("closing a clause: every noun, bracket and frame reads the letter", () => {
    let n = 0;
    for (const noun of nouns)
      for (const form of letterForms)
        for (const frame of frames) {
          const letter = LETTERS[n++ % 4];
          expectLetter(frame(`${noun} ${form(letter)}`), letter);
        }
  });

  test("with its own option text: 'Option B: Paris', 'choice (C) - Marseille'", () => {
    expectLetter("Option B: Paris", "B");
    expectLetter("choice (C) - Marseille", "C");
    expectLetter("My pick is option D: Nice.", "D");
    expectLetter("Option B: Lyon", null); // the letter and the text disagree: no answer
  });

  test("an 'answer is letter X' statement stays an explicit answer", () => {
    for (const text of [
      "The answer is letter D",
      "answer is letter D",
      "My final answer is choice (D).",
      "Answer: option D",
    ])
      expectLetter(text, "D");
  });

  test("near-misses stay unparsed", () => {
    for (const text of [
      "Option A is a good conductor. Option C does not corrode.", // a predicate follows: discussion
      "It is not option B.",
      "That rules out option A.",
      "We can eliminate choice C.",
      "Unlike option D.",
      "Anything but option A.",
      "option A or option B.", // a hedge
      "Option A: Lyon\nOption B: Paris\nOption C: Marseille\nOption D: Nice", // a listing
      "Option E.", // not one of the item's letters
      "Optional B.", // the noun inside a word
      "Options B and C are close.",
      "a choice a person makes", // the article, not option A
    ])
      expectLetter(text, null);
  });

  test("an explicit marker wins over a named option, wherever it stands", () => {
    expectLetter("Option B is wrong; the answer is C", "C");
    expectLetter("The answer is C, not option B.", "C");
    expectLetter("Answer: C\n\nI briefly considered option B.", "C");
  });

  test("the last named option wins among them; a negation reaches only its own phrase", () => {
    expectLetter("First I thought option A. On reflection, option B.", "B");
    expectLetter("It's not A, but option B.", "B");
    expectLetter("Not Lyon; the parliament sits in the capital, so option B.", "B");
  });
});

describe("a bracketed letter closing a sentence of agreement", () => {
  const stances = [
    ["I agree with the statement", "A"],
    ["I strongly agree with this claim", "A"],
    ["Yes, I agree", "A"],
    ["Agreed", "A"],
    ["I would have to agree", "A"],
    ["I concur with the view expressed", "A"],
    ["I disagree with the statement", "B"],
    ["I do not agree with it", "B"],
    ["On balance I disagree", "B"],
    ["My position is disagreement", "B"],
  ] as const;
  const brackets = [
    (l: string) => `(${l})`,
    (l: string) => `[${l}]`,
    (l: string) => `**(${l})**`,
    (l: string) => `(${l.toLowerCase()})`,
  ];
  const closings = ["", ".", "!", " .", ".\n\nThat is my view."];

  test("every stance, bracket and closing reads the letter the sentence ends with", () => {
    for (const [stance, letter] of stances)
      for (const bracket of brackets)
        for (const closing of closings) expectLetter(`${stance} ${bracket(letter)}${closing}`, letter, AGREE);
  });

  test("after reasoning, the closing agreement sentence is the answer", () => {
    expectLetter(
      "The claim rests on evidence from several studies. Weighing them, I agree with the statement (A).",
      "A",
      AGREE,
    );
    expectLetter("Some would agree (A). Having read it twice, I disagree (B).", "B", AGREE);
  });

  test("near-misses stay unparsed", () => {
    for (const text of [
      "(a) first point, (b) second point, and I agree with both.", // letters in mid-sentence
      "I agree with point (a).", // a reference to part of a text
      "I agree with the first part (a) and then some.", // the letter does not close the sentence
      "I agree with points (a) and (b).", // two letters
      "I agree with (A) or (B).",
      "A good case can be made; I agree.", // the article, no bracketed letter
      "The statement (A) is something I agree with.", // the letter opens, not closes
      "See the annex (C).", // no stance taken
    ])
      expectLetter(text, null, text.includes("(C)") ? CITY : AGREE);
  });

  test("a letter standing alone after the agreement sentence it closes, on the same line", () => {
    for (const [stance, letter] of stances)
      for (const bracket of brackets)
        for (const end of [".", "!", ". ", "."]) {
          expectLetter(`${stance}${end} ${bracket(letter)}`, letter, AGREE);
          expectLetter(`Having weighed it: ${stance.toLowerCase()}${end} ${bracket(letter)}\n`, letter, AGREE);
        }
    expectLetter("I agree with that view, so my answer is (B).", "B", AGREE);
    expectLetter("Yes, I agree with the claim. (B)", "B", AGREE);
  });

  test("a closing letter after a sentence takes no stance, or names no option, stays unparsed", () => {
    for (const [text, options] of [
      ["The claim cites two studies. (B)", AGREE], // the sentence it closes takes no stance
      ["Yes, I agree with the claim. (C)", AGREE], // C is not among the item's options
      ["I agree. The annex says more (B)", AGREE], // the letter closes a sentence without a stance
      ["I agree with point 2. See (B)", AGREE], // a reference, in its own sentence
      ["I agree with the claim. (A) and (B)", AGREE], // two letters
      ["I agree with the claim. (B) is wrong though.", AGREE], // the letter opens a sentence
    ] as const)
      expectLetter(text, null, options);
  });

  test("a later explicit answer still wins (last answer)", () => {
    expectLetter("I agree with the statement (A).\n\nAnswer: (B)", "B", AGREE);
    expectLetter("I agree with the claim. (A)\n\nAnswer: (B)", "B", AGREE);
  });
});
