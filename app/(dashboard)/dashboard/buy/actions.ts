"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import type { AuthenticationFormState } from "@/components/dashboard/buy-authentication-form";
import type { PurchaseFormState } from "@/components/dashboard/buy-purchase-form";
import { NotAllowedError, requireAdmin } from "@/lib/auth/session";
import { headers } from "next/headers";
import { beginAuthentication, completeSimulatedAuthentication } from "@/lib/points/complete-authentication";
import { PointsError } from "@/lib/points/errors";
import { getOrganization } from "@/lib/points/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import { parseTopUpRequest } from "@/lib/points/top-up-request";
import { getRuntime } from "@/lib/runtime";

/*
 * Only the actions are exported: every export of a "use server" file is a public endpoint, and
 * each takes the organisation from the session, never from the form.
 */

const purchaseForm = z.object({
  points: z.string().regex(/^\d{1,9}$/).transform(Number),
  currency: z.string(),
  payment_source_id: z.string(),
  reference: z.string(),
});

const FORM_CHANGED = "The purchase form was incomplete or changed; start a new purchase.";

// The service's messages speak to API clients; these few say the same for a person in the dashboard.
const dashboardMessages: Partial<Record<PointsError["code"], string>> = {
  invalid_payment_method: "That payment method can no longer be used for a purchase; choose another one.",
  no_payment_method: "Your organisation has no usable saved payment method; add one in Payment details.",
  invalid_request: FORM_CHANGED,
};

// Buy a bundle for the signed-in admin's organisation: the same purchase service as the REST API.
export async function buyPoints(_state: PurchaseFormState, formData: FormData): Promise<PurchaseFormState> {
  let destination: string;
  try {
    const user = await requireAdmin();
    const runtime = await getRuntime();
    const form = purchaseForm.safeParse(Object.fromEntries(formData));
    if (!form.success) return { ok: false, error: FORM_CHANGED };
    const request = parseTopUpRequest(form.data);
    const organization = await getOrganization(runtime.db, user.organizationId);
    if (!organization) return { ok: false, error: "Your organisation no longer exists." };
    const result = await purchasePoints(
      runtime,
      { organization, request, source: "dashboard" },
      { leaseMs: runtime.leaseMs },
    );
    if (result.outcome === "reference_conflict") {
      return {
        ok: false,
        error:
          "This form was already used for a different purchase (its reference is taken), so nothing was charged. Start a new purchase to buy this bundle.",
        existingTopUpId: result.topUp.id,
      };
    }
    destination = `/dashboard/buy/${result.topUp.id}${result.replayed ? "?replayed=1" : ""}`;
  } catch (error) {
    return purchaseError(error);
  }
  // The balance in the header and every list of top-ups change with a purchase.
  revalidatePath("/dashboard", "layout");
  redirect(destination);
}

// The simulated cardholder authentication of a purchase awaiting payment, then its outcome.
export async function completeAuthentication(
  _state: AuthenticationFormState,
  formData: FormData,
): Promise<AuthenticationFormState> {
  let topUpId: string;
  try {
    const user = await requireAdmin();
    const form = z
      .object({ top_up_id: z.string().regex(/^tu_[A-Za-z0-9]{1,40}$/), outcome: z.enum(["succeed", "fail"]) })
      .safeParse(Object.fromEntries(formData));
    if (!form.success) return { ok: false, error: "Choose whether the authentication succeeds or fails." };
    topUpId = form.data.top_up_id;
    const runtime = await getRuntime();
    await completeSimulatedAuthentication(runtime, {
      organizationId: user.organizationId,
      topUpId,
      succeed: form.data.outcome === "succeed",
    });
  } catch (error) {
    if (error instanceof NotAllowedError || error instanceof PointsError) return { ok: false, error: error.message };
    console.error("Completing authentication failed:", error);
    return { ok: false, error: "Something went wrong on our side; try again, nothing is charged twice." };
  }
  revalidatePath("/dashboard", "layout");
  redirect(`/dashboard/buy/${topUpId}`);
}

// "Complete payment" with Stripe: the same PaymentIntent confirmed on-session, then its 3-D Secure page.
export async function startProviderAuthentication(
  _state: AuthenticationFormState,
  formData: FormData,
): Promise<AuthenticationFormState> {
  let destination: string;
  try {
    const user = await requireAdmin();
    const topUpId = z.string().regex(/^tu_[A-Za-z0-9]{1,40}$/).safeParse(formData.get("top_up_id"));
    if (!topUpId.success) return { ok: false, error: "This purchase cannot be completed from here." };
    // Next checks a server action's Origin against its Host, so the origin names this dashboard.
    const origin = (await headers()).get("origin") ?? "";
    if (!/^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin)) return { ok: false, error: "Open this page from the dashboard's own address." };
    const runtime = await getRuntime();
    const started = await beginAuthentication(runtime, {
      organizationId: user.organizationId,
      topUpId: topUpId.data,
      returnUrl: `${origin}/dashboard/buy/${topUpId.data}/return`,
    });
    destination = "redirectUrl" in started ? started.redirectUrl : `/dashboard/buy/${topUpId.data}`;
  } catch (error) {
    if (error instanceof NotAllowedError || error instanceof PointsError) return { ok: false, error: error.message };
    console.error("Starting authentication failed:", error);
    return { ok: false, error: "The billing provider did not answer; try again in a moment. Nothing is charged twice." };
  }
  revalidatePath("/dashboard", "layout");
  redirect(destination);
}

function purchaseError(error: unknown): PurchaseFormState {
  if (error instanceof NotAllowedError) return { ok: false, error: error.message };
  if (error instanceof PointsError) {
    const fields = error.details.fields;
    return {
      ok: false,
      error: dashboardMessages[error.code] ?? error.message,
      fields: fields && typeof fields === "object" ? (fields as Record<string, string>) : undefined,
    };
  }
  console.error("Dashboard purchase failed:", error);
  // Unknown failures may have happened after the charge was sent: the same form is safe to re-send.
  return {
    ok: false,
    error: "Something went wrong on our side. Try again with the same form: it cannot charge twice.",
  };
}
