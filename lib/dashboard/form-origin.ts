import { headers } from "next/headers";

/**
 * The dashboard's own address as the browser sent it with a server action, for links that must
 * come back here (Stripe Checkout, a bank's 3-D Secure page). Next checks a server action's Origin
 * against its Host, so a well-formed Origin names this dashboard; anything else is null.
 */
export async function formOrigin(): Promise<string | null> {
  const origin = (await headers()).get("origin") ?? "";
  return /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin) ? origin : null;
}

export const NO_ORIGIN = "Open this page from the dashboard's own address.";
