import { account, postCredentials, signInError } from "../api/sign-in-helpers";
import { expect, test } from "../fixtures";

const SIGN_IN_MAX_FAILURES_PER_ADDRESS = 50;

test.describe("the per-address sign-in limit behind a trusted proxy", () => {
  test("rotating the client's part of X-Forwarded-For does not escape the per-address limit", async ({ request }) => {
    // Fifty-one sign-ins, each a production-cost scrypt hash.
    test.setTimeout(240_000);
    // The proxy appended this address (the rightmost); everything left of it is the client's word.
    const proxied = `198.51.100.${Math.floor(Math.random() * 200) + 20}`;
    const run = Date.now().toString(36);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES_PER_ADDRESS; i += 1) {
      const response = await postCredentials(
        request,
        { email: `rotate-${run}-${i}@e2e-account.example`, password: "guess" },
        { "X-Forwarded-For": `203.0.113.${i + 1}, ${proxied}` },
      );
      expect(await signInError(response)).toBe("CredentialsSignin");
    }
    const paused = await postCredentials(
      request,
      { email: `rotate-${run}-last@e2e-account.example`, password: "guess" },
      { "X-Forwarded-For": `192.0.2.200, ${proxied}` },
    );
    expect(await signInError(paused)).toMatch(/^Too many failed sign-ins/);
    // Another address behind the same proxy is not held back by that one.
    const other = await postCredentials(request, account.signin.member, {
      "X-Forwarded-For": `${proxied}, 198.51.100.250`,
    });
    expect(await signInError(other)).toBeNull();
  });
});
