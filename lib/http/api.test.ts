import { describe, expect, it } from "vitest";
import { PointsError } from "@/lib/points/errors";
import { captureLog, quietLogger } from "@/lib/testing/observability";
import { errorResponse, readJsonBody } from "./api";

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

/** What postgres.js and PgBouncer throw when the database is restarting, as drizzle wraps them. */
function driverError(code: string, message: string): Error {
  const error = new Error(`Failed query: select 1\nparams: `);
  error.cause = Object.assign(new Error(message), { code });
  return error;
}

describe("a database that cannot be reached", () => {
  it.each([
    ["CONNECTION_CLOSED", "write CONNECTION_CLOSED 127.0.0.1:6432"],
    ["CONNECTION_ENDED", "write CONNECTION_ENDED 127.0.0.1:6432"],
    ["CONNECT_TIMEOUT", "write CONNECT_TIMEOUT 127.0.0.1:6432"],
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:6432"],
    ["57P01", "terminating connection due to administrator command"],
    ["57P03", "the database system is starting up"],
    ["08P01", "server login has been failing, try again later (server_login_retry)"],
    ["08006", "connection failure"],
  ])("answers %s with 502 database_unavailable in the envelope, with Retry-After", async (code, message) => {
    const response = errorResponse(driverError(code, message), "req_test");
    expect(response.status).toBe(502);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = (await response.json()) as { status: string; error: { code: string; message: string } };
    expect(body.status).toBe("error");
    expect(body.error.code).toBe("database_unavailable");
    expect(body.error.message).not.toContain(message);
  });

  it("leaves any other database error a 500", async () => {
    const response = errorResponse(driverError("42P01", 'relation "x" does not exist'), "req_test");
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("internal_error");
  });
});

describe("an error with a cause", () => {
  it("logs the cause with the request's id, and sends only the error's own words", async () => {
    const lines = captureLog();
    try {
      const cause = new Error("connect ETIMEDOUT 10.0.0.7:443 (api.stripe.com)");
      const response = errorResponse(
        new PointsError("payment_methods_unavailable", "Payment methods are temporarily unavailable.", {
          retryAfterSeconds: 30,
          cause,
        }),
        "req_cause",
      );
      expect(response.status).toBe(502);
      expect(JSON.stringify(await response.json())).not.toContain("ETIMEDOUT");
      expect(lines()).toContainEqual(
        expect.objectContaining({
          event: "error_cause",
          request_id: "req_cause",
          code: "payment_methods_unavailable",
          cause: "Error: connect ETIMEDOUT 10.0.0.7:443 (api.stripe.com)",
        }),
      );
      // Without a cause, nothing is logged for a refusal.
      errorResponse(new PointsError("invalid_request", "Bad."), "req_plain");
      expect(lines().filter((line) => line.request_id === "req_plain")).toEqual([]);
    } finally {
      quietLogger();
    }
  });
});
