import fs from "node:fs";
import type http from "node:http";
import { CHECKOUT_CARDS } from "./cards";
import { completeSession } from "./resources/checkout";
import { finishAuthentication } from "./resources/payment-intents";
import type { Store } from "./store";

/*
 * The pages Stripe hosts for the cardholder, under /_pages: the bank's 3-D Secure step and
 * Checkout in setup mode. Each ends in a 303 back to the app, as Stripe's do. They wear the app's
 * look (its slate and indigo, its card and button shapes, its icon) in CSS of their own, since this
 * server fetches nothing from elsewhere.
 */

const STYLE = `*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:#f8fafc;color:#0f172a;-webkit-font-smoothing:antialiased;
font-family:ui-sans-serif,system-ui,sans-serif,"Apple Color Emoji","Segoe UI Emoji";line-height:1.5}
header{display:flex;align-items:center;gap:.75rem;padding:1rem 1.25rem;border-bottom:1px solid #e2e8f0;background:#fff}
.mark{display:inline-flex;width:2rem;height:2rem;align-items:center;justify-content:center;border-radius:.5rem;
background:#4f46e5;color:#fff;font-weight:700;font-size:.875rem}
.name{font-weight:600}
.badge{margin-left:auto;border-radius:9999px;background:#fef3c7;color:#92400e;font-size:.75rem;font-weight:500;padding:.125rem .625rem}
main{max-width:28rem;margin:0 auto;padding:2.5rem 1rem}
.card{border:1px solid #e2e8f0;border-radius:.75rem;background:#fff;box-shadow:0 1px 2px rgb(0 0 0/.05);padding:1.5rem}
h1{margin:0 0 .25rem;font-size:1.25rem;font-weight:600;letter-spacing:-.01em}
p{margin:.5rem 0;font-size:.875rem;color:#475569}
.amount{font-size:1.5rem;font-weight:600;color:#0f172a;font-variant-numeric:tabular-nums;margin:1rem 0}
label{display:block;font-size:.875rem;font-weight:500;margin:1.25rem 0 .375rem}
select{width:100%;border-radius:.375rem;border:1px solid #cbd5e1;background:#fff;padding:.5rem .75rem;font:inherit;font-size:.875rem;color:#0f172a}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem;align-items:center}
.actions form{margin:0}
button{display:inline-flex;align-items:center;justify-content:center;border:0;border-radius:.375rem;padding:.5rem .875rem;
font:inherit;font-size:.875rem;font-weight:600;cursor:pointer;box-shadow:0 1px 2px rgb(0 0 0/.05);background:#4f46e5;color:#fff}
button:hover{background:#4338ca}
button.secondary{background:#fff;color:#0f172a;box-shadow:inset 0 0 0 1px #cbd5e1}
button.secondary:hover{background:#f8fafc}
button:focus-visible,select:focus-visible,a:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}
a{color:#4338ca;font-size:.875rem;font-weight:500;text-decoration:none}
a:hover{text-decoration:underline}
.note{margin-top:1.5rem;font-size:.75rem;color:#64748b}`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function shell(title: string, content: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Points test server</title><link rel="icon" href="/favicon.ico" type="image/svg+xml"><style>${STYLE}</style></head>
<body><header><span class="mark" aria-hidden="true">P</span><span class="name">Points</span><span class="badge">Stripe test server</span></header>
<main><div class="card">${content}</div></main></body></html>`;
}

let icon: Buffer | null = null;

/** The app's own icon (app/icon.svg), so a tab on this server is not an anonymous one. */
export function serveFavicon(response: http.ServerResponse): void {
  icon ??= fs.readFileSync(new URL("../../../app/icon.svg", import.meta.url));
  response.writeHead(200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" });
  response.end(icon);
}

interface PageResponse {
  html(status: number, content: string): void;
  redirect(location: string): void;
}

export function servePage(store: Store, method: string, url: URL, body: string, response: http.ServerResponse): void {
  const page: PageResponse = {
    html: (status, content) => {
      response.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
      response.end(shell(/<h1>(.*?)<\/h1>/.exec(content)?.[1] ?? "Stripe", content));
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
function authenticationPage(
  store: Store,
  method: string,
  url: URL,
  intentId: string,
  button: string | undefined,
  page: PageResponse,
): void {
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
    `<h1>3-D Secure test page</h1><p>Your bank asks you to confirm this payment to Points.</p>
<div class="amount">${(intent.amount / 100).toFixed(2)} ${escapeHtml(intent.currency.toUpperCase())}</div>
<p>Payment <code>${escapeHtml(intent.id)}</code></p>
<div class="actions"><form method="post" action="/_pages/3ds/${escapeHtml(intent.id)}/complete"><button type="submit">Complete</button></form>
<form method="post" action="/_pages/3ds/${escapeHtml(intent.id)}/fail"><button type="submit" class="secondary">Fail</button></form></div>
<p class="note">Complete succeeds as the cardholder would; Fail refuses, as a failed check does.</p>`,
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
  const options = CHECKOUT_CARDS.map((card) => `<option value="${card.token}">${escapeHtml(card.label)}</option>`).join(
    "",
  );
  const cancel = session.cancel_url ? `<a href="${escapeHtml(session.cancel_url)}">Cancel</a>` : "";
  page.html(
    200,
    `<h1>Save a card (test server)</h1><p>The card is saved to your organisation for later purchases. Nothing is charged now.</p>
<form method="post"><label for="card">Card</label><select id="card" name="card">${options}</select>
<div class="actions"><button type="submit">Save card</button>${cancel}</div></form>
<p class="note">Test cards only: each behaves as its label says.</p>`,
  );
}
