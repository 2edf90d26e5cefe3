import { describe, expect, it } from "vitest";
import { PointsError } from "@/lib/points/errors";
import { readJsonBody } from "./api";

const post = (text: string) => new Request("http://localhost/v3/points/top-ups", { method: "POST", body: text });

async function refusal(text: string): Promise<Record<string, unknown> | null> {
  try {
    await readJsonBody(post(text));
    return null;
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    return (error.details as { fields: Record<string, unknown> }).fields;
  }
}

describe("a JSON body read once", () => {
  it.each([
    ['{"points":100,"points":7500}', ["points"]],
    ['{ "points" : 100 , "reference":"a", "points" : 100 }', ["points"]],
    ['{"a":{"b":1,"b":2},"c":[{"d":1,"d":1}]}', ["a.b", "c[0].d"]],
    ['{"reference":"say \\"x\\": here","points":100,"points":250}', ["points"]],
    ['{"k\\"ey":1,"k\\u0022ey":2}', ['k"ey']],
  ])("refuses %s, naming each repeated key", async (text, keys) => {
    expect(Object.keys((await refusal(text)) ?? {})).toEqual(keys);
  });

  it.each([
    '{"points":100,"reference":"a"}',
    '{"reference":"a \\"b\\": c","points":100}',
    '{"a":{"b":1},"b":{"b":1}}',
    '{"text":"{\\"points\\":1,\\"points\\":2}"}',
    "[1,2,3]",
  ])("takes %s as parsed", async (text) => {
    expect(await readJsonBody(post(text))).toEqual(JSON.parse(text));
  });
});
