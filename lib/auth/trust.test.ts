import { describe, expect, it } from "vitest";
import { chooseClientAddress } from "./trust";

describe("the client address a per-address sign-in limit keys on", () => {
  const behindProxy = (forwardedFor: string | null, hops = 1) =>
    chooseClientAddress({ trustsProxy: true, hops, forwardedFor, socketAddress: "10.0.0.2" });
  const direct = (forwardedFor: string | null, socketAddress: string | null) =>
    chooseClientAddress({ trustsProxy: false, hops: 1, forwardedFor, socketAddress });

  it("behind one trusted proxy, is the rightmost entry: the one that proxy appended", () => {
    expect(behindProxy("203.0.113.9")).toBe("203.0.113.9");
    expect(behindProxy("198.51.100.1, 203.0.113.9")).toBe("203.0.113.9");
    expect(behindProxy("1.2.3.4, 5.6.7.8 ,203.0.113.9")).toBe("203.0.113.9");
  });

  it("with N trusted hops, is the Nth from the right; the leftmost if the chain is shorter", () => {
    expect(behindProxy("198.51.100.1, 203.0.113.9, 10.0.0.7", 2)).toBe("203.0.113.9");
    expect(behindProxy("198.51.100.1, 203.0.113.9, 10.0.0.7", 3)).toBe("198.51.100.1");
    expect(behindProxy("203.0.113.9", 2)).toBe("203.0.113.9");
  });

  it("behind a trusted proxy with no X-Forwarded-For, is the socket's address", () => {
    expect(behindProxy(null)).toBe("10.0.0.2");
    expect(behindProxy("")).toBe("10.0.0.2");
  });

  it("without a trusted proxy, is the socket's address whatever X-Forwarded-For says", () => {
    expect(direct("198.51.100.1", "192.0.2.4")).toBe("192.0.2.4");
    expect(direct("198.51.100.1, 203.0.113.9", "2001:db8::1")).toBe("2001:db8::1");
    expect(direct("198.51.100.1", "::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(direct("198.51.100.1", null)).toBeNull();
  });

  it("is none when the chosen entry is not an IP", () => {
    expect(behindProxy("198.51.100.1, unknown")).toBeNull();
    expect(behindProxy("198.51.100.1, 203.0.113.9:443")).toBeNull();
    expect(direct(null, "not-an-address")).toBeNull();
  });
});
