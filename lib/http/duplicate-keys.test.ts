import { describe, expect, it } from "vitest";
import { duplicateKeys } from "./duplicate-keys";

describe("repeated keys in a JSON body", () => {
  it.each([
    ['{"points":100,"points":7500}', ["points"]],
    ['{ "points" : 100 , "reference":"a", "points" : 100 }', ["points"]],
    ['{"points":100,"reference":"a"}', []],
    ['{"a":{"b":1,"b":2},"c":[{"d":1,"d":1}]}', ["a.b", "c[0].d"]],
    ['{"a":{"b":1},"b":{"b":1}}', []],
    ['{"k\\"ey":1,"k\\u0022ey":2}', ['k"ey']],
    ['{"text":"{\\"points\\":1,\\"points\\":2}"}', []],
    ['{"x":1,"x":2,"x":3}', ["x"]],
    ["[1,2,3]", []],
  ])("%s", (text, expected) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(duplicateKeys(text)).toEqual(expected);
  });

  it("skips values nested deeper than any request without exhausting the stack", () => {
    const deep = `{"a":${"[".repeat(20000)}"]}"${"]".repeat(20000)},"a":1}`;
    expect(duplicateKeys(deep)).toEqual(["a"]);
    expect(duplicateKeys(`{"p":${'{"a":'.repeat(10000)}1${"}".repeat(10000)},"q":2}`)).toEqual([]);
  });
});
