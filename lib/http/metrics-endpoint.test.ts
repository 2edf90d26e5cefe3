import { describe, expect, it } from "vitest";
import { tokenMatches } from "./metrics-endpoint";

describe("the metrics token", () => {
  it("matches only `Bearer <token>` with exactly the token", () => {
    expect(tokenMatches("Bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(tokenMatches("bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(tokenMatches("Bearer s3cret-toke", "s3cret-token")).toBe(false);
    expect(tokenMatches("s3cret-token", "s3cret-token")).toBe(false);
    expect(tokenMatches(null, "s3cret-token")).toBe(false);
    expect(tokenMatches("Bearer ", "")).toBe(false);
  });
});
