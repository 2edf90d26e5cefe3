import { describe, expect, it } from "vitest";
import { runWithRequestContext, setRequestCaller } from "./context";
import { createLogger, REDACTED } from "./log";

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const apiKey = `pts_${"a1B2".repeat(10)}`;
// Made at run time, so nothing committed looks like a real Stripe secret to a scanner.
const stripeKey = `sk_test_${"51AbCd".repeat(4)}`;
const restrictedKey = `rk_live_${"9ZyXw".repeat(3)}`;
const webhookSecret = `whsec_${"Q2hlY2".repeat(4)}`;
const password = "correct horse battery staple";
const cookie = "__Secure-next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0.abc";

describe("the log", () => {
  it("never writes a secret, whether it comes as a named field or inside a message or an error", () => {
    const { logger, lines } = capture();
    logger.info(
      { authorization: `Bearer ${apiKey}`, headers: { cookie, authorization: `Bearer ${apiKey}` } },
      "headers",
    );
    logger.info({ user: { email: "a@example.com", password }, apiKey, secretKey: stripeKey, webhookSecret }, "fields");
    logger.warn(
      `Stripe refused ${stripeKey} (and ${restrictedKey}); webhook ${webhookSecret}; caller sent Bearer ${apiKey}`,
    );
    logger.error({ err: new Error(`boom with ${apiKey}`), detail: `key ${stripeKey}` }, "error");
    const text = lines.join("");
    for (const secret of [apiKey, stripeKey, restrictedKey, webhookSecret, password, cookie, "eyJhbGciOiJkaXIi"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain(REDACTED);
    // What is not a secret stays readable.
    expect(text).toContain("a@example.com");
    expect(text).toContain("Stripe refused");
  });

  it("is one JSON object per line, in UTC, with the request's id, organisation and API key on each line of the request", () => {
    const { logger, lines, parsed } = capture();
    logger.info("before any request");
    runWithRequestContext({ requestId: "req_1" }, () => {
      logger.info("before authentication");
      setRequestCaller({ organizationId: "org_1", apiKeyId: "key_1" });
      logger.info({ event: "purchase_phase" }, "after");
    });
    expect(lines.every((line) => line.endsWith("\n") && line.trim().split("\n").length === 1)).toBe(true);
    const [outside, before, after] = parsed();
    expect(outside).not.toHaveProperty("request_id");
    expect(before).toMatchObject({ request_id: "req_1", level: "info" });
    expect(before).not.toHaveProperty("organization_id");
    expect(after).toMatchObject({
      request_id: "req_1",
      organization_id: "org_1",
      api_key_id: "key_1",
      event: "purchase_phase",
    });
    expect(String(after?.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("keeps lines below its level out", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    logger.info("quiet");
    logger.warn("loud");
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(["loud"]);
  });
});
