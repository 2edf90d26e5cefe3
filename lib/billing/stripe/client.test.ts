import { describe, expect, it } from "vitest";
import { createStripeClient, STRIPE_API_ORIGIN, stripeTarget } from "./client";

const live = `sk_live_${"x".repeat(24)}`;
const test = `sk_test_${"x".repeat(24)}`;

describe("where a Stripe key may be sent", () => {
  it("sends any key to Stripe's own API, with the test cards of a test server off", () => {
    for (const secretKey of [live, test, "rk_live_restricted", "rk_test_restricted"]) {
      expect(stripeTarget({ secretKey })).toEqual({ origin: STRIPE_API_ORIGIN, testServer: false });
      expect(stripeTarget({ secretKey, apiUrl: "https://api.stripe.com/" })).toEqual({
        origin: STRIPE_API_ORIGIN,
        testServer: false,
      });
    }
  });

  it("refuses a live key for any other API, loopback included, naming the way out", () => {
    for (const apiUrl of [
      "http://127.0.0.1:12111",
      "https://stripe.example.com",
      "http://localhost:12111",
      "https://api.stripe.com.example.net",
    ]) {
      expect(() => stripeTarget({ secretKey: live, apiUrl }), apiUrl).toThrow(
        /live STRIPE_SECRET_KEY is sent only to Stripe's own API/,
      );
      expect(() => createStripeClient({ secretKey: live, apiUrl }), apiUrl).toThrow(/live STRIPE_SECRET_KEY/);
    }
    expect(() => stripeTarget({ secretKey: "rk_live_x", apiUrl: "http://127.0.0.1:1" })).toThrow(/live/);
  });

  it("lets a test key reach a test server over http on this machine only, and over https anywhere", () => {
    for (const apiUrl of [
      "http://127.0.0.1:12111",
      "http://localhost:12111",
      "http://[::1]:12111",
      "http://127.8.9.10",
    ]) {
      expect(stripeTarget({ secretKey: test, apiUrl }), apiUrl).toMatchObject({ testServer: true });
    }
    expect(stripeTarget({ secretKey: test, apiUrl: "https://stripe-mock.internal:12111" })).toEqual({
      origin: "https://stripe-mock.internal:12111",
      testServer: true,
    });
    for (const apiUrl of ["http://10.0.0.5:12111", "http://stripe-mock:12111", "http://127.0.0.1.example.com"]) {
      expect(() => stripeTarget({ secretKey: test, apiUrl }), apiUrl).toThrow(/plain http to another machine/);
    }
    expect(() => stripeTarget({ secretKey: test, apiUrl: "ftp://127.0.0.1" })).toThrow(/http\(s\) URL/);
  });

  it("refuses what is not a Stripe secret key", () => {
    for (const secretKey of ["pk_live_publishable", "whsec_abc", "sk_prod_x", ""]) {
      expect(() => stripeTarget({ secretKey }), secretKey).toThrow(/must be a Stripe secret key/);
    }
  });
});
