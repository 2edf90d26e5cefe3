import dns from "node:dns";
import net from "node:net";

/**
 * Where a webhook may go. An endpoint's URL is checked when it is saved (`checkWebhookUrl`), and
 * its host name is resolved and checked again at every connect (`resolvePublicAddress`, used as the
 * socket's lookup), so a name that later resolves to a private address (DNS rebinding) is refused
 * too. Outside development (`allowPrivate: false`), webhooks go only to public addresses over https.
 */

/** Resolves a host name to its addresses; tests pass a fake one so no real DNS is asked. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** The operating system's resolver (getaddrinfo), every address in the order it gave them. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

const MAX_URL_LENGTH = 2048;

/** A dotted-quad IPv4 address as four bytes, or null. */
function parseIPv4(text: string): number[] | null {
  if (!net.isIPv4(text)) return null;
  return text.split(".").map(Number);
}

/**
 * An IPv6 address in any written form (compressed, expanded, with a dotted IPv4 tail, with a zone
 * after `%`) as sixteen bytes, or null.
 */
function parseIPv6(text: string): number[] | null {
  const address = text.split("%")[0] ?? "";
  if (!net.isIPv6(address)) return null;
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string | undefined): number[] | null => {
    if (!part) return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (piece.includes(".")) {
        const v4 = index === pieces.length - 1 ? parseIPv4(piece) : null;
        if (!v4) return null;
        groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return null;
        groups.push(Number.parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

/** Whether the 32-bit IPv4 address falls in `base`/`bits`. */
function inV4(bytes: number[], base: [number, number, number, number], bits: number): boolean {
  const value = (bytes[0] ?? 0) * 2 ** 24 + (bytes[1] ?? 0) * 2 ** 16 + (bytes[2] ?? 0) * 2 ** 8 + (bytes[3] ?? 0);
  const start = base[0] * 2 ** 24 + base[1] * 2 ** 16 + base[2] * 2 ** 8 + base[3];
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(start / size);
}

/** IPv4 ranges that are not the public internet (RFC 6890's special-purpose registry). */
const PRIVATE_V4: Array<[[number, number, number, number], number]> = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local, cloud metadata (169.254.169.254)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast (deprecated)
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 3], // multicast, reserved, broadcast: 224.0.0.0 and above
];

function isPublicV4(bytes: number[]): boolean {
  return !PRIVATE_V4.some(([base, bits]) => inV4(bytes, base, bits));
}

/** Whether the first `bits` bits of the sixteen bytes equal those of `prefix`. */
function inV6(bytes: number[], prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const left = Math.min(8, bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function isPublicV6(bytes: number[]): boolean {
  const zeros = (count: number) => bytes.slice(0, count).every((byte) => byte === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, which also covers :: and ::1):
  // the socket would reach the embedded IPv4 address, so that is what is judged.
  if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return isPublicV4(bytes.slice(12));
  if (zeros(12)) return isPublicV4(bytes.slice(12));
  // 2002::/16 (6to4) carries an IPv4 address in its next 32 bits.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return isPublicV4(bytes.slice(2, 6));
  // Only 2000::/3 is global unicast: this refuses ::/8 (64:ff9b::/96 NAT64, ::ffff:0:a.b.c.d),
  // 100::/64 (discard), fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10, ff00::/8 (multicast).
  if (!inV6(bytes, [0x20], 3)) return false;
  const refused: Array<[number[], number]> = [
    [[0x20, 0x01, 0x00, 0x00], 32], // Teredo: its client's IPv4 address is hidden
    [[0x20, 0x01, 0x00, 0x10], 28], // ORCHID
    [[0x20, 0x01, 0x00, 0x20], 28], // ORCHIDv2
    [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
    [[0x3f, 0xff], 20], // documentation (RFC 9637)
  ];
  return !refused.some(([prefix, bits]) => inV6(bytes, prefix, bits));
}

/**
 * Whether an IP address is on the public internet: false for loopback, private, link-local (cloud
 * metadata), carrier-grade NAT, documentation, benchmarking, multicast and reserved ranges, in IPv4
 * and IPv6 alike (IPv4-mapped and IPv4-compatible IPv6 addresses are judged by their IPv4 part),
 * and false for anything that is not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4(bare);
  if (v4) return isPublicV4(v4);
  const v6 = parseIPv6(bare);
  return v6 ? isPublicV6(v6) : false;
}

/** The host of a parsed URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function isLocalhost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * The check of an endpoint's URL when it is saved (and again before each send): an absolute
 * http(s) URL with a host and no credentials, at most 2048 characters; https, a public IP literal
 * and a host other than localhost unless `allowPrivate` (development). Host names are not resolved
 * here: `resolvePublicAddress` does that at every connect.
 */
export function checkWebhookUrl(
  raw: string,
  options: { allowPrivate: boolean },
): { ok: true; url: URL } | { ok: false; reason: string } {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: `The URL must be at most ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "The URL is not a valid absolute URL, such as https://example.com/webhooks." };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: "The URL must start with https://." };
  }
  if (url.protocol !== "https:" && !options.allowPrivate) return { ok: false, reason: "The URL must use https." };
  if (url.username || url.password) {
    return { ok: false, reason: "The URL must not contain a username or password; send credentials in a header." };
  }
  const host = bareHost(url);
  if (!host) return { ok: false, reason: "The URL must include a host name." };
  if (options.allowPrivate) return { ok: true, url };
  if (net.isIP(host) !== 0 && !isPublicAddress(host)) {
    return {
      ok: false,
      reason: `The URL points at a private or loopback address (${host}); webhooks go only to public addresses.`,
    };
  }
  if (isLocalhost(host)) {
    return { ok: false, reason: `The URL points at ${host}; webhooks go only to public addresses.` };
  }
  return { ok: true, url };
}

/**
 * The address to connect to for `hostname`: an IP literal as it is, a name through the resolver.
 * Unless `allowPrivate`, throws when any resolved address is not public (a name with one private
 * address among public ones could be steered there), and always throws when nothing resolved.
 */
export async function resolvePublicAddress(
  hostname: string,
  options: { allowPrivate: boolean; resolver?: Resolver },
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const literal = net.isIP(host);
  if (!options.allowPrivate && literal === 0 && isLocalhost(host)) {
    throw new Error(`Refused ${host}: webhooks go only to public addresses.`);
  }
  const found = literal !== 0 ? [{ address: host }] : await (options.resolver ?? systemResolver)(host);
  const checked: Array<{ address: string; family: 4 | 6 }> = [];
  for (const { address } of found) {
    const family = net.isIP(address);
    if (family === 0) throw new Error(`${host} resolved to ${JSON.stringify(address)}, which is not an IP address.`);
    if (!options.allowPrivate && !isPublicAddress(address)) {
      const what = literal !== 0 ? address : `${host} resolves to ${address}`;
      throw new Error(`Refused ${what}: a private or loopback address; webhooks go only to public addresses.`);
    }
    checked.push({ address, family: family === 6 ? 6 : 4 });
  }
  const first = checked[0];
  if (!first) throw new Error(`${host} did not resolve to any address.`);
  return first;
}
