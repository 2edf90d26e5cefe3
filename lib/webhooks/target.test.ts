import { describe, expect, it } from "vitest";
import {
  checkWebhookUrl,
  isLoopbackAddress,
  isPublicAddress,
  PRIVATE_TARGETS_HINT,
  type Resolver,
  resolvePublicAddress,
} from "./target";

/** A resolver that answers from a table and never asks real DNS. */
function fakeResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}

describe("isPublicAddress", () => {
  const refused = [
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "0:0:0:0:0:0:0:1",
    "0000:0000:0000:0000:0000:0000:0000:0001",
    "fc00::1",
    "fd12:3456:789a::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf:ffff::1",
    "ff02::1",
    "ff05::1:3",
    "2001:db8::1",
    "2001:0db8:0000:0000:0000:0000:0000:0001",
    "64:ff9b::8.8.8.8",
    "64:ff9b::7f00:1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::FFFF:7F00:0001",
    "0:0:0:0:0:ffff:127.0.0.1",
    "0:0:0:0:0:ffff:a9fe:a9fe",
    "::ffff:10.0.0.1",
    "::ffff:192.168.0.1",
    "::127.0.0.1",
    "::7f00:1",
    "::10.1.2.3",
    "2002:7f00:1::1",
    "2002:a00:1::",
    "[::1]",
    "not an address",
    "",
    "localhost",
    "127.1",
    "1.2.3",
  ];
  const accepted = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.169.0.1",
    "198.20.0.1",
    "223.255.255.255",
    "2606:4700::1111",
    "2606:4700:0:0:0:0:0:1111",
    "2a00:1450:4001:82a::200e",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "2002:808:808::1",
    "[2606:4700::1111]",
  ];

  it.each(refused)("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(accepted)("accepts %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("checkWebhookUrl", () => {
  const strict = { allowPrivate: false };
  const relaxed = { allowPrivate: true };

  it("accepts a public https URL", () => {
    const result = checkWebhookUrl("https://hooks.example.com/points?x=1", strict);
    expect(result.ok && result.url.hostname).toBe("hooks.example.com");
  });

  it("requires https unless private targets are allowed", () => {
    expect(checkWebhookUrl("http://hooks.example.com/", strict)).toEqual({
      ok: false,
      reason: `The URL must use https. ${PRIVATE_TARGETS_HINT}`,
    });
    expect(checkWebhookUrl("http://hooks.example.com/", relaxed).ok).toBe(true);
    expect(checkWebhookUrl("http://127.0.0.1:3000/hooks", relaxed).ok).toBe(true);
  });

  it("refuses other schemes, relative and malformed URLs", () => {
    for (const raw of ["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "/hooks", "https://", ""]) {
      const result = checkWebhookUrl(raw, relaxed);
      expect(result.ok, raw).toBe(false);
    }
    expect(checkWebhookUrl("not a url", strict)).toMatchObject({ ok: false, reason: expect.stringMatching(/valid/) });
  });

  it("refuses credentials in the URL", () => {
    for (const raw of ["https://user:secret@example.com/", "https://user@example.com/", "https://:pw@example.com/"]) {
      expect(checkWebhookUrl(raw, relaxed)).toMatchObject({ ok: false, reason: expect.stringMatching(/username/) });
    }
  });

  it("refuses a URL over 2048 characters", () => {
    const raw = `https://example.com/${"a".repeat(2048)}`;
    expect(checkWebhookUrl(raw, relaxed)).toMatchObject({ ok: false, reason: expect.stringMatching(/2048/) });
  });

  it("refuses localhost names unless private targets are allowed", () => {
    for (const raw of [
      "https://localhost/",
      "https://LOCALHOST:8443/",
      "https://api.localhost/",
      "https://localhost./",
    ]) {
      expect(checkWebhookUrl(raw, strict).ok, raw).toBe(false);
      expect(checkWebhookUrl(raw, relaxed).ok, raw).toBe(true);
    }
  });

  it("refuses private IP literals, in every form the URL parser reads", () => {
    expect(checkWebhookUrl("https://127.0.0.1/", strict)).toEqual({
      ok: false,
      reason: `The URL points at a private or loopback address (127.0.0.1); webhooks go only to public addresses. ${PRIVATE_TARGETS_HINT}`,
    });
    for (const raw of [
      "https://10.0.0.1/",
      "https://169.254.169.254/latest/meta-data",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://0177.0.0.1/",
      "https://[::1]/",
      "https://[0:0:0:0:0:0:0:1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[fd00::1]:8443/",
    ]) {
      expect(checkWebhookUrl(raw, strict).ok, raw).toBe(false);
      expect(checkWebhookUrl(raw, relaxed).ok, raw).toBe(true);
    }
    expect(checkWebhookUrl("https://8.8.8.8/", strict).ok).toBe(true);
    expect(checkWebhookUrl("https://[2606:4700::1111]/", strict).ok).toBe(true);
  });
});

describe("resolvePublicAddress", () => {
  const resolver = fakeResolver({
    "loopback.test": ["127.0.0.1"],
    "private.test": ["10.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "v6-loopback.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "mixed.test": ["93.184.215.14", "10.0.0.1"],
    "hooks.example.test": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "empty.test": [],
  });
  const strict = { allowPrivate: false, resolver };

  it.each([
    ["loopback.test", "127.0.0.1"],
    ["private.test", "10.0.0.1"],
    ["metadata.test", "169.254.169.254"],
    ["v6-loopback.test", "::1"],
    ["mapped.test", "::ffff:127.0.0.1"],
    ["mixed.test", "10.0.0.1"],
  ])("refuses %s, which resolves to %s", async (hostname, address) => {
    await expect(resolvePublicAddress(hostname, strict)).rejects.toThrow(address);
  });

  it("accepts a name whose every address is public, and returns the first", async () => {
    await expect(resolvePublicAddress("hooks.example.test", strict)).resolves.toEqual({
      address: "93.184.215.14",
      family: 4,
    });
  });

  it("refuses a name that resolves to nothing", async () => {
    await expect(resolvePublicAddress("empty.test", strict)).rejects.toThrow(/did not resolve/);
    await expect(resolvePublicAddress("empty.test", { allowPrivate: true, resolver })).rejects.toThrow(
      /did not resolve/,
    );
  });

  it("says what was refused: a loopback or a private address, and what the name resolved to", async () => {
    await expect(resolvePublicAddress("loopback.test", strict)).rejects.toThrow(
      "refused: loopback.test resolves to 127.0.0.1, a loopback address; webhooks go only to public addresses.",
    );
    await expect(resolvePublicAddress("private.test", strict)).rejects.toThrow(
      "refused: private.test resolves to 10.0.0.1, a private address; webhooks go only to public addresses.",
    );
  });

  it("with allowLoopback (npm run dev), a receiver on this machine only: private addresses stay refused", async () => {
    const dev = { allowPrivate: false, allowLoopback: true, resolver };
    for (const [hostname, address] of [
      ["loopback.test", "127.0.0.1"],
      ["v6-loopback.test", "::1"],
      ["mapped.test", "::ffff:127.0.0.1"],
    ] as const) {
      await expect(resolvePublicAddress(hostname, dev)).resolves.toMatchObject({ address });
    }
    for (const hostname of ["private.test", "metadata.test", "mixed.test"]) {
      await expect(resolvePublicAddress(hostname, dev)).rejects.toThrow(/refused: .* a private address/);
    }
    expect(checkWebhookUrl("http://127.0.0.1:5001/hooks", dev).ok).toBe(true);
    expect(checkWebhookUrl("http://localhost:5001/hooks", dev).ok).toBe(true);
    expect(checkWebhookUrl("http://[::1]:5001/hooks", dev).ok).toBe(true);
    expect(checkWebhookUrl("http://10.0.0.1/hooks", dev)).toEqual({
      ok: false,
      reason: `The URL must use https. ${PRIVATE_TARGETS_HINT}`,
    });
    expect(checkWebhookUrl("https://192.168.1.2/hooks", dev)).toMatchObject({ ok: false });
    expect(checkWebhookUrl("http://hooks.example.com/", dev)).toMatchObject({ ok: false });
    expect(["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1", "[::1]"].every(isLoopbackAddress)).toBe(true);
    expect(["10.0.0.1", "8.8.8.8", "::2", "localhost", "169.254.169.254"].some(isLoopbackAddress)).toBe(false);
  });

  it("allows private addresses when asked", async () => {
    await expect(resolvePublicAddress("mixed.test", { allowPrivate: true, resolver })).resolves.toEqual({
      address: "93.184.215.14",
      family: 4,
    });
    await expect(resolvePublicAddress("loopback.test", { allowPrivate: true, resolver })).resolves.toEqual({
      address: "127.0.0.1",
      family: 4,
    });
  });

  it("judges IP literals without resolving them", async () => {
    const never: Resolver = async () => {
      throw new Error("resolved");
    };
    await expect(resolvePublicAddress("127.0.0.1", { allowPrivate: false, resolver: never })).rejects.toThrow(
      "127.0.0.1",
    );
    await expect(resolvePublicAddress("[::1]", { allowPrivate: false, resolver: never })).rejects.toThrow("::1");
    await expect(resolvePublicAddress("8.8.8.8", { allowPrivate: false, resolver: never })).resolves.toEqual({
      address: "8.8.8.8",
      family: 4,
    });
    await expect(resolvePublicAddress("[2606:4700::1111]", { allowPrivate: false, resolver: never })).resolves.toEqual({
      address: "2606:4700::1111",
      family: 6,
    });
  });

  it("refuses localhost names without asking the resolver", async () => {
    const never: Resolver = async () => [{ address: "93.184.215.14", family: 4 }];
    await expect(resolvePublicAddress("localhost", { allowPrivate: false, resolver: never })).rejects.toThrow(
      "localhost",
    );
    await expect(resolvePublicAddress("a.localhost", { allowPrivate: false, resolver: never })).rejects.toThrow(
      "a.localhost",
    );
  });
});
