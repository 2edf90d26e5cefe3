import { expect, test } from "../fixtures";
import { account, postCredentials, signInError } from "./sign-in-helpers";

test.describe("the session cookie of a production server", () => {
  test("a session cookie is Secure in production, though the URL is plain http", async ({ request }) => {
    const response = await postCredentials(request, account.signin.admin);
    expect(await signInError(response)).toBeNull();
    const session = response
      .headersArray()
      .filter((header) => header.name.toLowerCase() === "set-cookie")
      .map((header) => header.value)
      .find((value) => /session-token=/.test(value));
    expect(session, "a session cookie was set").toBeDefined();
    expect(session).toMatch(/;\s*Secure(;|$)/i);
    expect(session).toMatch(/^__Secure-next-auth\.session-token=/);
    expect(session).toMatch(/;\s*HttpOnly/i);
  });
});
