"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { adminAction, redirectTo } from "@/lib/dashboard/admin-action";
import { topUpIdField } from "@/lib/dashboard/fields";
import { getOrganization } from "@/lib/points/accounts/organizations";
import { parseTopUpRequest } from "@/lib/points/api/top-up-request";
import { purchasePoints } from "@/lib/points/purchase";
import { beginAuthentication, completeSimulatedAuthentication } from "@/lib/points/purchase/complete-authentication";
import { trackInFlight } from "@/lib/server/lifecycle";

/*
 * Only the actions are exported: every export of a "use server" file is a public endpoint, and
 * each takes the organisation from the session, never from the form.
 */

const purchaseForm = z.object({
  points: z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number),
  currency: z.string(),
  payment_source_id: z.string(),
  reference: z.string(),
  check: z.literal("1").optional(),
});

/** A purchase another billing provider charged: the operator was told in the log. */
const PAYMENT_ELSEWHERE =
  "This payment cannot be completed right now; nothing was charged. Contact support if it stays so.";

const FORM_CHANGED = "The purchase form was incomplete or changed; start a new purchase.";

/** Buy a bundle for the signed-in admin's organisation: the same purchase service as the REST API. */
export const buyPoints = adminAction(
  purchaseForm,
  async (form, { user, runtime }) => {
    const { check, ...fields } = form;
    const request = parseTopUpRequest(fields);
    const organization = await getOrganization(runtime.db, user.organizationId);
    if (!organization) return { ok: false, error: "Your organisation no longer exists." };
    const result = await trackInFlight(() =>
      purchasePoints(runtime, { organization, request, source: "dashboard" }, { leaseMs: runtime.leaseMs }),
    );
    if (result.outcome === "reference_conflict") {
      return {
        ok: false,
        error:
          "This form was already used for a different purchase (its reference is taken), so nothing was charged. Start a new purchase to buy this bundle.",
        existingTopUpId: result.topUp.id,
      };
    }
    // The balance in the header and every list of top-ups change with a purchase.
    revalidatePath("/dashboard", "layout");
    // "Check again now" sends the purchase again on purpose: its answer is the outcome, not a repeat.
    const arrival = check ? "checked" : result.replayed ? "replayed" : "bought";
    return redirectTo(`/dashboard/history/${result.topUp.id}?${arrival}=1`);
  },
  {
    invalid: FORM_CHANGED,
    // The service's messages speak to API clients; these few say the same for a person in the dashboard.
    messages: {
      invalid_payment_method: "That payment method can no longer be used for a purchase; choose another one.",
      no_payment_method: "Your organisation has no usable saved payment method; add one in Payment details.",
      invalid_request: FORM_CHANGED,
    },
    // Unknown failures may have happened after the charge was sent: the same form is safe to re-send.
    unexpected: "Something went wrong on our side. Try again with the same form: it cannot charge twice.",
  },
);

/** The simulated cardholder authentication of a purchase awaiting payment, then its outcome. */
export const completeAuthentication = adminAction(
  z.object({ top_up_id: topUpIdField, outcome: z.enum(["succeed", "fail"]) }),
  async ({ top_up_id, outcome }, { user, runtime }) => {
    await completeSimulatedAuthentication(runtime, {
      organizationId: user.organizationId,
      topUpId: top_up_id,
      succeed: outcome === "succeed",
    });
    revalidatePath("/dashboard", "layout");
    return redirectTo(`/dashboard/history/${top_up_id}?bought=1`);
  },
  {
    invalid: "Choose whether the authentication succeeds or fails.",
    messages: { billing_provider_mismatch: PAYMENT_ELSEWHERE },
    unexpected: "Something went wrong on our side; try again, nothing is charged twice.",
  },
);

/** "Complete payment" with Stripe: the same PaymentIntent confirmed on-session, then its 3-D Secure page. */
export const startProviderAuthentication = adminAction(
  z.object({ top_up_id: topUpIdField }),
  async ({ top_up_id }, { user, runtime, origin }) => {
    const started = await beginAuthentication(runtime, {
      organizationId: user.organizationId,
      topUpId: top_up_id,
      returnUrl: `${origin}/dashboard/buy/${top_up_id}/return`,
    });
    revalidatePath("/dashboard", "layout");
    return redirectTo("redirectUrl" in started ? started.redirectUrl : `/dashboard/history/${top_up_id}?bought=1`);
  },
  {
    origin: true,
    invalid: "This purchase cannot be completed from here.",
    messages: { billing_provider_mismatch: PAYMENT_ELSEWHERE },
    unexpected: "The billing provider did not answer; try again in a moment. Nothing is charged twice.",
  },
);
