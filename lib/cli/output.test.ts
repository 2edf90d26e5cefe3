import { describe, expect, it } from "vitest";
import { ProvisioningError } from "@/lib/points/errors";
import { refusalMessage } from "./output";

describe("refusalMessage", () => {
  it("names a refused field by the command's flag, as the operator typed it", () => {
    const refused = (field: string, problem: string) =>
      refusalMessage(new ProvisioningError(`In the domain's words ${problem}`, { fields: { [field]: problem } }));
    expect(refused("defaultCardIndex", "needs at least one card.")).toBe("--default-card needs at least one card.");
    expect(refused("simulateOutage", "works only with the simulated billing provider (no STRIPE_SECRET_KEY).")).toBe(
      "--simulate-outage works only with the simulated billing provider (no STRIPE_SECRET_KEY).",
    );
    expect(refused("role", 'must be admin or member, not "owner".')).toBe(
      '--role must be admin or member, not "owner".',
    );
    // --name is an organisation's (org create) or a key's (key create): each command has one.
    expect(refused("name", "must not be empty.")).toBe("--name must not be empty.");
  });

  it("keeps the domain's message when no field has a flag", () => {
    const taken = new ProvisioningError("The billing customer cus_1 is already linked to another organisation.", {
      reason: "billing_customer_taken",
    });
    expect(refusalMessage(taken)).toBe(taken.message);
    expect(refusalMessage(new ProvisioningError("Odd.", { fields: { unknownField: "is odd." } }))).toBe("Odd.");
  });
});
