import { afterEach, describe, expect, it, vi } from "vitest";
import { secureCookies, sessionCookieName } from "./cookies";

describe("when session cookies are Secure", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("always in production, whatever the URL says, under next-auth's __Secure- name", () => {
    for (const url of ["http://127.0.0.1:3100", "http://points.example", "https://points.example", ""]) {
      vi.stubEnv("NODE_ENV", "production");
      vi.stubEnv("NEXTAUTH_URL", url);
      expect(secureCookies(), url).toBe(true);
      expect(sessionCookieName()).toBe("__Secure-next-auth.session-token");
    }
  });

  it("outside production, exactly when the public URL is https", () => {
    vi.stubEnv("NODE_ENV", "development");
    vi.stubEnv("NEXTAUTH_URL", "http://localhost:3000");
    expect(secureCookies()).toBe(false);
    expect(sessionCookieName()).toBe("next-auth.session-token");
    vi.stubEnv("NEXTAUTH_URL", "https://points.example");
    expect(secureCookies()).toBe(true);
  });
});
