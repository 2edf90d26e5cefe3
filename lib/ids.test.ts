import { describe, expect, it } from "vitest";
import { newId, randomString } from "./ids";

describe("ids", () => {
  it("are prefixed, of the alphabet, and never repeat across many pool refills", () => {
    const ids = Array.from({ length: 5000 }, () => newId("topUp"));
    for (const id of ids) expect(id).toMatch(/^tu_[0-9A-HJ-NP-Za-km-z]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("makes strings of any length, longer than the pool too", () => {
    expect(randomString(1)).toHaveLength(1);
    expect(randomString(40)).toMatch(/^[0-9A-HJ-NP-Za-km-z]{40}$/);
    expect(randomString(5000)).toHaveLength(5000);
  });

  it("uses every character of the alphabet about equally", () => {
    const counts = new Map<string, number>();
    for (const char of randomString(59 * 2000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(59);
    // About 2000 each, give or take 44 (one standard deviation); a character a biased sampler
    // favoured or neglected would be about 500 off.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(1780);
      expect(count).toBeLessThan(2220);
    }
  });
});
