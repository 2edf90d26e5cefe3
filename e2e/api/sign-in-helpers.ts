import type { APIRequestContext } from "@playwright/test";
import type { AccountFixtures } from "../dashboard/account.fixtures";
import { readFixtures } from "../fixtures";

/*
 * next-auth's credentials endpoint as a client other than the sign-in page meets it, against
 * `next start` (e2e/serve.ts sets NEXTAUTH_URL, so the operator has declared a trusted proxy:
 * one hop, the default).
 */
export const account = (readFixtures() as unknown as { account: AccountFixtures }).account;

export async function postCredentials(
  request: APIRequestContext,
  fields: { email: string; password: string },
  headers: Record<string, string> = {},
) {
  const csrf = await request.get("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return request.post("/api/auth/callback/credentials", {
    form: { ...fields, csrfToken, json: "true" },
    headers,
    maxRedirects: 0,
  });
}

/** The error next-auth sends the sign-in page to, or null for a signed-in answer. */
export async function signInError(response: Awaited<ReturnType<typeof postCredentials>>): Promise<string | null> {
  const { url } = (await response.json()) as { url: string };
  return new URL(url).searchParams.get("error");
}
