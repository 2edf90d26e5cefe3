import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { NotAllowedError } from "@/lib/dashboard/session";
import { PointsError } from "@/lib/points/errors";
import { errorLinesSpy } from "@/lib/testing/observability";

/*
 * adminAction with only what Next provides around it stood in for: the admin check (its own tests
 * are in lib/auth), the runtime, the request's headers and redirect.
 */
const app = vi.hoisted(() => ({
  refusal: null as Error | null,
  origin: null as string | null,
  redirectedTo: null as string | null,
}));
vi.mock("@/lib/dashboard/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/dashboard/session")>()),
  // A member, signed in: enough for signedInAction, not for adminAction (whose check is below).
  requireSignedIn: async () => {
    if (app.refusal) throw app.refusal;
    return {
      userId: "usr_2",
      organizationId: "org_1",
      organizationName: "Org",
      email: "m@example.com",
      role: "member",
      sessionVersion: 3,
    };
  },
  requireAdmin: async () => {
    if (app.refusal) throw app.refusal;
    return {
      userId: "usr_1",
      organizationId: "org_1",
      organizationName: "Org",
      email: "a@example.com",
      role: "admin",
      sessionVersion: 0,
    };
  },
}));
vi.mock("@/lib/server/runtime", () => ({ getRuntime: async () => ({ name: "runtime" }) }));
vi.mock("next/headers", () => ({
  headers: async () => new Headers(app.origin === null ? {} : { origin: app.origin }),
}));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    app.redirectedTo = url;
    throw Object.assign(new Error("NEXT_REDIRECT"), { digest: `NEXT_REDIRECT;replace;${url};307;` });
  },
}));

const { adminAction, redirectTo, signedInAction } = await import("./admin-action");

function form(entries: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.set(name, value);
  return data;
}

const nameForm = z.object({ name: z.string().min(1, "Enter a name.") });

describe("adminAction", () => {
  const logged = errorLinesSpy();
  afterEach(() => {
    app.refusal = null;
    app.origin = null;
    app.redirectedTo = null;
    logged.mockClear();
  });

  it("refuses a caller who is not a signed-in admin before reading the form, and runs nothing", async () => {
    const run = vi.fn(async () => ({ ok: true }));
    const action = adminAction(nameForm, run);
    app.refusal = new NotAllowedError("Your session has ended; sign in again.");
    expect(await action(null, form({}))).toEqual({ ok: false, error: "Your session has ended; sign in again." });
    app.refusal = new NotAllowedError();
    expect(await action(null, form({ name: "x" }))).toEqual({
      ok: false,
      error: "Only an admin of this organisation can do that.",
    });
    expect(run).not.toHaveBeenCalled();
    expect(logged).not.toHaveBeenCalled();
  });

  it("signedInAction runs for any signed-in user, member or admin, and refuses a session that has ended", async () => {
    const action = signedInAction(nameForm, async ({ name }, { user }) => ({
      ok: true,
      said: `${name}, ${user.role}`,
    }));
    expect(await action(null, form({ name: "Ada", userId: "usr_other" }))).toEqual({ ok: true, said: "Ada, member" });
    app.refusal = new NotAllowedError("Your session has ended; sign in again.");
    expect(await action(null, form({ name: "Ada" }))).toEqual({
      ok: false,
      error: "Your session has ended; sign in again.",
    });
  });

  it("runs with the parsed form, the session's user and the runtime, and answers what run answers", async () => {
    const action = adminAction(nameForm, async ({ name }, { user, runtime }) => ({
      ok: true,
      said: `${name} for ${user.organizationId} on ${(runtime as unknown as { name: string }).name}`,
    }));
    expect(
      await action({ ok: true, said: "an earlier answer" }, form({ name: "Ada", organizationId: "org_other" })),
    ).toEqual({
      ok: true,
      said: "Ada for org_1 on runtime",
    });
  });

  it("answers a form that does not parse with every offending field, or with the one message it is given", async () => {
    const run = vi.fn(async () => ({ ok: true }));
    expect(await adminAction(nameForm, run)(null, form({ name: "" }))).toEqual({
      ok: false,
      error: "Some fields need attention; nothing was saved.",
      fields: { name: "Enter a name." },
    });
    expect(await adminAction(nameForm, run, { invalid: "Start again." })(null, form({}))).toEqual({
      ok: false,
      error: "Start again.",
    });
    expect(run).not.toHaveBeenCalled();
  });

  it("shows a PointsError's message, points at its fields, and rewords it for a person when asked", async () => {
    const plain = new PointsError("not_found", "No such card.");
    const withFields = new PointsError("invalid_request", "`kind` is unknown.", {
      details: { fields: { kind: "is unknown" } },
    });
    const failing = (error: Error) => async (): Promise<{ ok: boolean }> => {
      throw error;
    };
    expect(await adminAction(z.object({}), failing(plain))(null, form({}))).toEqual({
      ok: false,
      error: "No such card.",
    });
    expect(await adminAction(z.object({}), failing(withFields))(null, form({}))).toEqual({
      ok: false,
      error: "Check the highlighted field; nothing was saved.",
      fields: { kind: "is unknown" },
    });
    const reworded = { messages: { invalid_request: "Choose a card from the list." } };
    expect(await adminAction(z.object({}), failing(withFields), reworded)(null, form({}))).toEqual({
      ok: false,
      error: "Choose a card from the list.",
      fields: { kind: "is unknown" },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it("knows the service's errors by their brand, so a copy of the class from the other bundle still counts", async () => {
    const fromOtherBundle = Object.assign(new Error("No such card."), {
      [Symbol.for("points.PointsError")]: true,
      code: "not_found",
      details: {},
    });
    const action = adminAction(z.object({}), async (): Promise<{ ok: boolean }> => {
      throw fromOtherBundle;
    });
    expect(await action(null, form({}))).toEqual({ ok: false, error: "No such card." });
    expect(logged).not.toHaveBeenCalled();
  });

  it("logs anything else and answers generically (or in the action's words), never with its detail", async () => {
    const failing = async (): Promise<{ ok: boolean }> => {
      throw new Error("connection to 10.0.0.5 refused: SELECT * FROM users");
    };
    expect(await adminAction(z.object({}), failing)(null, form({}))).toEqual({
      ok: false,
      error: "Something went wrong on our side; nothing was changed. Try again in a moment.",
    });
    expect(
      await adminAction(z.object({}), failing, { unexpected: "Try again: it cannot charge twice." })(null, form({})),
    ).toEqual({
      ok: false,
      error: "Try again: it cannot charge twice.",
    });
    expect(logged).toHaveBeenCalledTimes(2);
  });

  it("redirects after run, outside the error mapping, so Next receives its redirect", async () => {
    const action = adminAction(z.object({}), async () => redirectTo("/dashboard/buy/tu_1"));
    await expect(action(null, form({}))).rejects.toThrow("NEXT_REDIRECT");
    expect(app.redirectedTo).toBe("/dashboard/buy/tu_1");
    expect(logged).not.toHaveBeenCalled();
  });

  it("with origin: true, refuses a missing or malformed Origin and passes a well-formed one to run", async () => {
    const action = adminAction(z.object({}), async (_input, { origin }) => ({ ok: true, origin }), { origin: true });
    const refused = { ok: false, error: "Open this page from the dashboard's own address." };
    expect(await action(null, form({}))).toEqual(refused);
    app.origin = "https://evil.example/path?x=1";
    expect(await action(null, form({}))).toEqual(refused);
    app.origin = "http://127.0.0.1:3000";
    expect(await action(null, form({}))).toEqual({ ok: true, origin: "http://127.0.0.1:3000" });
  });
});
