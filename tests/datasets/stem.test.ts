import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openEndedQuestion } from "../../src/datasets/format.js";
import { openEndedRewrite, openEndedStem, singular } from "../../src/datasets/stem.js";

/** [MC stem, expected open-ended question, option-dependent?] */
const TABLE: [string, string, boolean][] = [
  ["Which of the following is the capital of Norway?", "What is the capital of Norway?", false],
  ["which of the following best describes a prime number?", "What best describes a prime number?", false],
  ["WHICH OF THE FOLLOWING gases is most abundant in air?", "Which gas is most abundant in air?", false],
  [
    "Which one of the following metals is liquid at room temperature?",
    "Which metal is liquid at room temperature?",
    false,
  ],
  ["Which of the following statements about enzymes is correct?", "Which statement about enzymes is correct?", false],
  [
    "Which of the following organs are part of the digestive system?",
    "Which organs are part of the digestive system?",
    false,
  ],
  ["In which of the following countries is the Atacama desert?", "In which country is the Atacama desert?", false],
  ["Insulin is produced by which of the following?", "Insulin is produced by what?", false],
  ["From the options below, what is the freezing point of water?", "What is the freezing point of water?", false],
  ["Of the options given, which planet has the most moons?", "Which planet has the most moons?", false],
  ["Of the following solutions, which would be the best buffer?", "Which solution would be the best buffer?", false],
  [
    "Of the following ionic compounds, which has the highest melting point?",
    "Which ionic compound has the highest melting point?",
    false,
  ],
  ["Of the following, which is a noble gas? Choose one.", "What is a noble gas?", false],
  ["What is the longest river in Africa? Choose the best answer.", "What is the longest river in Africa?", false],
  ["What is 7 times 8? Select one of the following options:", "What is 7 times 8?", false],
  [
    "How many legs does a spider have?\nPlease select the correct option from the list below.",
    "How many legs does a spider have?",
    false,
  ],
  ["What colour is chlorophyll?\nAnswer:", "What colour is chlorophyll?", false],
  ["What do bees make? (Choose one answer.)", "What do bees make?", false],
  // Questions that cannot be asked without their options: rewritten as far as possible, but flagged.
  ["Which of these animals is a reptile?", "Which animal is a reptile?", true],
  ["Which of the following is true?", "What is true?", true],
  ["Which of the following statements is correct?", "Which statement is correct?", true],
  ["All of the following are fruits EXCEPT", "All of the following are fruits EXCEPT", true],
  ["Which of the following is NOT a primary colour?", "What is NOT a primary colour?", true],
  ["A careful gardener will notice the following signs.", "A careful gardener will notice the following signs.", true],
  [
    "Of the following problems about a graph G, which is solvable in linear time?",
    "Of the following problems about a graph G, which is solvable in linear time?",
    true,
  ],
  [
    "Lenses bend light toward which of the two points below?",
    "Lenses bend light toward which of the two points below?",
    true,
  ],
  [
    "Statement 1 | Every field is a ring. Statement 2 | Every ring is a field.",
    "Statement 1 | Every field is a ring. Statement 2 | Every ring is a field.",
    true,
  ],
];

describe("openEndedStem: MC artefact table", () => {
  for (const [stem, expected, dependent] of TABLE) {
    it(JSON.stringify(stem), () => {
      const result = openEndedStem(stem);
      assert.equal(result.question, expected);
      assert.equal(result.optionDependent, dependent, `reasons: ${result.reasons.join("; ")}`);
    });
  }

  it("leaves a question without artefacts untouched", () => {
    const stem = "What happens if you crack your knuckles a lot?";
    assert.deepEqual(openEndedStem(stem, ["Nothing in particular happens.", "You get arthritis."]), {
      question: stem,
      optionDependent: false,
      reasons: [],
      removed: [],
    });
  });

  it("does not treat a capitalised acronym or ordinary 'following' as an artefact", () => {
    assert.equal(openEndedStem("What does a NOT gate output for input 1?").optionDependent, false);
    assert.equal(openEndedStem("What is the usual pain relief following minor surgery?").optionDependent, false);
  });

  it("flags options that refer to other options or to numbered statements", () => {
    const cases: [string[], RegExp][] = [
      [["Oak", "Pine", "All of the above"], /refers to the other options/],
      [["Cats", "Dogs", "None of these"], /refers to the other options/],
      [["A", "B", "Both A and B", "Neither"], /combines other options/],
      [["A and C", "B only", "C", "D"], /combines other options/],
      [["I only", "I and II", "II and III only", "I, II and III"], /numbered statements/],
      [["True, True", "False, False", "True, False", "False, True"], /truth values/],
    ];
    for (const [options, reason] of cases) {
      const result = openEndedStem("Which trees are evergreen?", options);
      assert.ok(result.optionDependent, options.join("|"));
      assert.match(result.reasons.join("; "), reason);
    }
  });

  it("flags an empty question (options only)", () => {
    assert.ok(
      openEndedStem("", ["Yes", "No"]).optionDependent,
      'expected openEndedStem("", ["Yes", "No"]).optionDependent',
    );
  });

  it("singularises the noun it rewrites", () => {
    assert.deepEqual(["solutions", "species", "processes", "batteries", "gas", "bus"].map(singular), [
      "solution",
      "species",
      "process",
      "battery",
      "gas",
      "bus",
    ]);
  });
});

describe("openEndedRewrite and openEndedQuestion", () => {
  it("give openEndedStem's question and removed parts without its dependence check", () => {
    for (const [stem] of TABLE) {
      const { question, removed } = openEndedStem(stem, ["Alpha", "Beta"]);
      assert.deepEqual(openEndedRewrite(stem), { question, removed }, stem);
    }
  });

  it("rewrite an item's stem once per stem, and again when the stem changes", () => {
    const item = {
      id: "q",
      benchmark: "b",
      stem: "Which of the following is the capital of Norway?",
      options: ["Oslo", "Bergen"],
      metadata: {},
    };
    assert.equal(openEndedQuestion(item), "What is the capital of Norway?");
    assert.equal(openEndedQuestion(item), "What is the capital of Norway?");
    item.stem = "Which of the following gases is most abundant in air?";
    assert.equal(openEndedQuestion(item), "Which gas is most abundant in air?");
    assert.equal(openEndedQuestion({ ...item, options: undefined }), item.stem);
  });
});
