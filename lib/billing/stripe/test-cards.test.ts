import { describe, expect, it } from "vitest";
import { TEST_CARD_TOKENS } from "@/lib/testing/fake-stripe/cards";
import { stripeTestCardKind, stripeTestCardKinds, stripeTestCardToken } from "./test-cards";

describe("test cards with Stripe (docs/contract.md §6)", () => {
  it.each([
    ["visa", "pm_card_visa"],
    ["mastercard", "pm_card_mastercard"],
    ["authentication_required", "pm_card_authenticationRequired"],
    ["declined", "pm_card_chargeCustomerFail"],
    ["dispute", "pm_card_createDispute"],
  ])("attaches %s as Stripe's %s", (kind, token) => {
    expect(stripeTestCardToken(kind, false)).toEqual({ token });
  });

  it("refuses, with the reason, kinds Stripe's test cards cannot make on a saved card", () => {
    for (const kind of ["processing", "insufficient_funds", "expired"]) {
      const answer = stripeTestCardToken(kind, false);
      expect(answer).toEqual({ refused: expect.stringMatching(/cannot make a saved .* use one of: visa, mastercard/) });
    }
    expect(stripeTestCardToken("amex", false)).toEqual({ refused: expect.stringMatching(/Unknown test card "amex"/) });
  });

  it("offers them on a Stripe-compatible test server, under names Stripe never uses", () => {
    expect(stripeTestCardToken("processing", true)).toEqual({ token: "pm_card_fake_processing" });
    expect(stripeTestCardToken("expired", true)).toEqual({ token: "pm_card_fake_expired" });
  });
});

describe("the test card behind a saved card", () => {
  it("names each kind's card from its brand and last four, as the token attaches it", () => {
    for (const kind of stripeTestCardKinds(true)) {
      const answer = stripeTestCardToken(kind, true);
      const card = "token" in answer ? TEST_CARD_TOKENS[answer.token] : undefined;
      if (!card) throw new Error(`No test card behind ${kind}`);
      expect(stripeTestCardKind({ brand: card.brand, last4: card.number.slice(-4), livemode: false })).toBe(kind);
    }
  });

  it("names none for a live card, or a card no kind uses", () => {
    expect(stripeTestCardKind({ brand: "visa", last4: "4242", livemode: true })).toBeUndefined();
    expect(stripeTestCardKind({ brand: "amex", last4: "0005", livemode: false })).toBeUndefined();
  });
});
