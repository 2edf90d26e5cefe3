import type http from "node:http";
import { CHECKOUT_CARDS } from "./cards";
import { completeSession } from "./resources/checkout";
import { finishAuthentication } from "./resources/payment-intents";
import type { Store } from "./store";

/*
 * The pages Stripe hosts for the cardholder, under /_pages: the bank's 3-D Secure step and
 * Checkout in setup mode. Each ends in a 303 back to the app, as Stripe's do.
 */

interface PageResponse {
  html(status: number, content: string): void;
  redirect(location: string): void;
}

export function servePage(store: Store, method: string, url: URL, body: string, response: http.ServerResponse): void {
  const page: PageResponse = {
    html: (status, content) => {
      response.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html><head><meta charset="utf-8"><title>Test server</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${content}</body></html>`,
      );
    },
    redirect: (location) => {
      response.writeHead(303, { Location: location });
      response.end();
    },
  };
  const auth = /^\/_pages\/3ds\/([^/]+)(\/(complete|fail))?$/.exec(url.pathname);
  const checkout = /^\/_pages\/checkout\/([^/]+)$/.exec(url.pathname);
  if (auth) authenticationPage(store, method, url, auth[1] ?? "", auth[3], page);
  else if (checkout) checkoutPage(store, method, body, checkout[1] ?? "", page);
  else page.html(404, "<p>Not found.</p>");
}

/** The bank's 3-D Secure page: Complete or Fail, then back to the return_url. */
function authenticationPage(store: Store, method: string, url: URL, intentId: string, button: string | undefined, page: PageResponse): void {
  const intent = store.intents.get(intentId);
  if (!intent) {
    page.html(404, "<p>No such payment.</p>");
    return;
  }
  const returnUrl = intent.next_action?.redirect_to_url?.return_url ?? url.searchParams.get("return_url") ?? "";
  if (method === "POST" && button) {
    const succeeded = button === "complete";
    if (intent.status === "requires_action") finishAuthentication(store, intent.id, succeeded);
    const back = new URL(returnUrl);
    back.searchParams.set("payment_intent", intent.id);
    back.searchParams.set("redirect_status", succeeded ? "succeeded" : "failed");
    page.redirect(back.toString());
    return;
  }
  page.html(
    200,
    `<h1>3-D Secure test page</h1><p>Payment ${intent.id}: ${(intent.amount / 100).toFixed(2)} ${intent.currency.toUpperCase()}.</p>
<form method="post" action="/_pages/3ds/${intent.id}/complete"><button type="submit">Complete</button></form>
<form method="post" action="/_pages/3ds/${intent.id}/fail" style="margin-top:1rem"><button type="submit">Fail</button></form>`,
  );
}

/** Checkout in setup mode: pick a test card, save it to the customer, back to success_url. */
function checkoutPage(store: Store, method: string, body: string, sessionId: string, page: PageResponse): void {
  const session = store.sessions.get(sessionId);
  if (!session) {
    page.html(404, "<p>No such Checkout session.</p>");
    return;
  }
  if (method === "POST") {
    const token = new URLSearchParams(body).get("card") ?? "";
    if (!CHECKOUT_CARDS.some((card) => card.token === token)) {
      page.html(400, "<p>Choose a test card.</p>");
      return;
    }
    completeSession(store, session.id, token);
    page.redirect((session.success_url ?? "").replace("{CHECKOUT_SESSION_ID}", session.id));
    return;
  }
  const options = CHECKOUT_CARDS.map((card) => `<option value="${card.token}">${card.label}</option>`).join("");
  page.html(
    200,
    `<h1>Save a card (test server)</h1><form method="post"><label>Card <select name="card">${options}</select></label>
<p><button type="submit">Save card</button></p></form>${session.cancel_url ? `<p><a href="${session.cancel_url}">Cancel</a></p>` : ""}`,
  );
}
