import { describe, expect, it } from "vitest";
import { FOREIGN_ACTION, refuseForeignAction, sameSiteAction } from "./form-origin";

/*
 * Issue 38, item 5b: a server action sent from another site is refused with 403 and words (proxy.ts),
 * by the rule Next's own check applies, where Next alone answers 500.
 */
const ACTION = { "next-action": "7f4af0a6f91bc971cbefa0baba83795ce03b7fd9e8", "content-type": "text/plain" };

function post(headers: Record<string, string>, method = "POST"): Request {
  return new Request("http://127.0.0.1:3100/dashboard/settings", { method, headers });
}

describe("a server action's Origin", () => {
  const check = (headers: Record<string, string>) => sameSiteAction(new Headers(headers));

  it("passes when it names the Host, or no Origin was sent", () => {
    expect(check({ host: "127.0.0.1:3100", origin: "http://127.0.0.1:3100" })).toBe(true);
    expect(check({ host: "points.example", origin: "https://points.example" })).toBe(true);
    // A default port is no part of the Origin's host, as in Next's `new URL(origin).host`.
    expect(check({ host: "points.example", origin: "https://points.example:443" })).toBe(true);
    expect(check({ host: "points.example" })).toBe(true);
  });

  it("is held to the first X-Forwarded-Host when there is one, as Next holds it", () => {
    expect(
      check({ host: "10.0.0.5:3000", "x-forwarded-host": "points.example, proxy", origin: "https://points.example" }),
    ).toBe(true);
    expect(
      check({ host: "points.example", "x-forwarded-host": "other.example", origin: "https://points.example" }),
    ).toBe(false);
  });

  it("fails for another site, another port, null, or what is not a URL", () => {
    expect(check({ host: "127.0.0.1:3100", origin: "https://evil.example" })).toBe(false);
    expect(check({ host: "127.0.0.1:3100", origin: "http://127.0.0.1:3101" })).toBe(false);
    expect(check({ host: "127.0.0.1:3100", origin: "null" })).toBe(false);
    expect(check({ host: "127.0.0.1:3100", origin: "127.0.0.1:3100" })).toBe(false);
    expect(check({ origin: "http://127.0.0.1:3100" })).toBe(false);
  });
});

describe("refuseForeignAction", () => {
  it("answers a server action from another site 403, in words, not cached", async () => {
    const response = refuseForeignAction(post({ ...ACTION, host: "127.0.0.1:3100", origin: "https://evil.example" }));
    expect(response?.status).toBe(403);
    expect(response?.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response?.headers.get("cache-control")).toBe("no-store");
    expect(await response?.text()).toBe(`${FOREIGN_ACTION}\n`);
    expect(FOREIGN_ACTION).toMatch(/^This form was sent from another site, so it was refused\./);
  });

  it("refuses a form sent without the page's script too (multipart, the action named in its fields)", () => {
    const form = { "content-type": "multipart/form-data; boundary=x", host: "127.0.0.1:3100" };
    expect(refuseForeignAction(post({ ...form, origin: "https://evil.example" }))?.status).toBe(403);
    expect(refuseForeignAction(post({ ...form, origin: "http://127.0.0.1:3100" }))).toBeNull();
  });

  it("lets the same site's actions, and what is no server action, go on", () => {
    expect(
      refuseForeignAction(post({ ...ACTION, host: "127.0.0.1:3100", origin: "http://127.0.0.1:3100" })),
    ).toBeNull();
    expect(refuseForeignAction(post({ ...ACTION, host: "127.0.0.1:3100" }))).toBeNull();
    // A page's GET, and a POST that is neither an action nor a form, are not Next's to check.
    expect(refuseForeignAction(post({ host: "127.0.0.1:3100", origin: "https://evil.example" }, "GET"))).toBeNull();
    expect(
      refuseForeignAction(
        post({ "content-type": "application/json", host: "127.0.0.1:3100", origin: "https://evil.example" }),
      ),
    ).toBeNull();
  });
});
