import { expect, test } from "../fixtures";
import { account } from "./sign-in-helpers";

test.describe("what next-auth's endpoints accept", () => {
  test("a JSON body, broken or not, is refused with 415 before next-auth reads it", async ({ request }) => {
    for (const data of ["{", JSON.stringify({ email: account.signin.admin.email, password: "x" })]) {
      const response = await request.post("/api/auth/callback/credentials", {
        headers: { "Content-Type": "application/json" },
        data,
        maxRedirects: 0,
      });
      expect(response.status()).toBe(415);
      const body = await response.json();
      expect(body).toMatchObject({ status: "error", error: { code: "unsupported_media_type" } });
      expect(JSON.stringify(body)).not.toMatch(/\bat \S+ \(|node_modules/);
    }
  });
});
