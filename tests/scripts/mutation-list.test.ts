/**
 * The mutation list of `npm run test:mutation` (scripts/mutation.ts) stays honest: every snippet
 * occurs exactly once in its file and every named test file exists. When code moves, this fails
 * and names the mutation to update, instead of the runner silently mutating nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSnippets, MUTATIONS } from "../../scripts/mutation.js";

describe("mutation list", () => {
  it("every snippet occurs once in its file; every test file exists", () => {
    assert.ok(MUTATIONS.length > 0, "mutations are listed");
    assert.deepEqual(checkSnippets(MUTATIONS), []);
  });

  it("the runner would refuse a stale snippet", () => {
    const stale = { ...MUTATIONS[0], find: `${MUTATIONS[0].find} /* no longer in the code */` };
    const problems = checkSnippets([stale]);
    assert.equal(problems.length, 1, "one problem reported");
    assert.match(problems[0], /found 0 times/);
  });
});
