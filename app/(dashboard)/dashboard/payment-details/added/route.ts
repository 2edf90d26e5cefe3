// GET /dashboard/payment-details/added – where Stripe Checkout sends the admin back after saving a card
import { getSessionUser } from "@/lib/dashboard/session";
import { seeOther } from "@/lib/http/see-other";
import { newId } from "@/lib/ids";
import { runAsUser } from "@/lib/observability/context";
import { log } from "@/lib/observability/log";
import { finishAddingCard } from "@/lib/points/cards/card-setup";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

/** Asks Stripe about the session named in the link (never trusting it) and shows Payment details. */
export async function GET(request: Request): Promise<Response> {
  const user = await getSessionUser();
  if (!user) return seeOther("/signin");
  const sessionId = new URL(request.url).searchParams.get("session_id") ?? "";
  let added = false;
  if (/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId) && user.role === "admin") {
    const runtime = await getRuntime();
    added = await runAsUser(user, newId("request"), () =>
      finishAddingCard(runtime, user.organizationId, sessionId),
    ).catch((error: unknown) => {
      log().error(
        { event: "card_setup_finish_failed", err: error },
        `Finishing a Checkout card setup failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    });
  }
  return seeOther(`/dashboard/payment-details${added ? "?added=1" : ""}`);
}
