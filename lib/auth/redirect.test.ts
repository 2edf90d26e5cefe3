import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "./redirect";

describe("where sign-in may send a person", () => {
  it.each([
    ["/dashboard/history?status=paid", "/dashboard/history?status=paid"],
    ["/dashboard/buy#top", "/dashboard/buy#top"],
    ["/", "/"],
    // An encoded control character is only text in a path on this site.
    ["/%0a", "/%0a"],
  ])("keeps the same-site path %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });

  it.each([
    "//evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "https://evil.example/dashboard",
    "javascript:alert(1)",
    "/\tevil",
    "/\n/evil.example",
    "",
    null,
    "dashboard",
  ])("refuses %j and goes to the dashboard", (input) => {
    expect(safeRedirectPath(input)).toBe("/dashboard");
  });
});
