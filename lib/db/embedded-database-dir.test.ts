import path from "node:path";
import { describe, expect, it } from "vitest";
import { embeddedDatabaseDir } from "./client";

/*
 * The embedded database the README's walkthroughs open: the simulated provider's under .data/pglite,
 * and Stripe's, or a Stripe test server's, apart from it, so that an organisation (the demo above all)
 * is only ever opened with the provider that holds its customer.
 */
describe("the embedded database's directory", () => {
  const cwd = path.join(path.sep, "work", "app");
  const at = (...parts: string[]) => path.join(cwd, ".data", ...parts);

  it("is .data/pglite with the simulated provider", () => {
    expect(embeddedDatabaseDir({}, cwd)).toBe(at("pglite"));
  });

  it("is one of Stripe's own with STRIPE_SECRET_KEY: for Stripe's API, and for a test server", () => {
    expect(embeddedDatabaseDir({ STRIPE_SECRET_KEY: "sk_test_x" }, cwd)).toBe(at("stripe", "pglite"));
    expect(embeddedDatabaseDir({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_API_URL: "https://api.stripe.com" }, cwd)).toBe(
      at("stripe", "pglite"),
    );
    expect(embeddedDatabaseDir({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_API_URL: "http://127.0.0.1:12111" }, cwd)).toBe(
      at("stripe-test-server", "pglite"),
    );
    // STRIPE_API_URL alone does not make Stripe the provider.
    expect(embeddedDatabaseDir({ STRIPE_API_URL: "http://127.0.0.1:12111" }, cwd)).toBe(at("pglite"));
  });

  it("is PGLITE_DIR whenever that is set", () => {
    expect(embeddedDatabaseDir({ PGLITE_DIR: "/tmp/mine", STRIPE_SECRET_KEY: "sk_test_x" }, cwd)).toBe("/tmp/mine");
  });
});
