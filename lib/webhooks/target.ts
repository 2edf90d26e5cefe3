import dns from "node:dns";
import net from "node:net";

/**
 * Where a webhook may go. An endpoint's URL is checked when it is saved (`checkWebhookUrl`), and
 * its host name is resolved and checked again at every connect (`resolvePublicAddress`, used as the
 * socket's lookup), so a name that later resolves to a private address (DNS rebinding) is refused
 * too. Webhooks go only to public addresses over https, but for two relaxations: `allowLoopback`
 * (`npm run dev`'s default) lets a receiver on this machine in over http, and `allowPrivate`
 * (POINTS_WEBHOOKS_ALLOW_PRIVATE=1: tests, development) allows http and every private address.
 */

/** What the two relaxations allow: in production neither is on unless the variable is set. */
export interface TargetOptions {
  allowPrivate: boolean;
  /** Loopback only (localhost, 127.0.0.0/8, ::1), http too: a receiver on this machine under `npm run dev`. */
  allowLoopback?: boolean;
}

/** How a refusal tells a developer the way out; said with every refusal of a private target. */
export const PRIVATE_TARGETS_HINT =
  "For a receiver on this machine, npm run dev allows localhost and 127.0.0.1; POINTS_WEBHOOKS_ALLOW_PRIVATE=1 allows http and private addresses (development only, never in production).";

/** Resolves a host name to its addresses; tests pass a fake one so no real DNS is asked. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** The operating system's resolver (getaddrinfo), every address in the order it gave them. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

const MAX_URL_LENGTH = 2048;

/** IPv4 ranges that are not the public internet (RFC 6890's special-purpose registry). */
const PRIVATE_V4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 3], // multicast, reserved, broadcast: 224.0.0.0 and above
];

const loopback = blockList([
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
  ["::7f00:0", 104, "ipv6"],
]);

/** Whether an IP address is this machine's loopback (127.0.0.0/8, ::1, and IPv4 loopback in IPv6 forms). */
export function isLoopbackAddress(address: string): boolean {
  const bare = (address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address).split("%")[0] ?? "";
  const family = net.isIP(bare);
  if (family === 0) return false;
  return loopback.check(bare, family === 4 ? "ipv4" : "ipv6");
}

/** Within 2000::/3, the only global unicast IPv6, the ranges that are still refused. */
const REFUSED_GLOBAL_V6: Array<[string, number]> = [
  ["2001::", 32], // Teredo: its client's IPv4 address is hidden
  ["2001:10::", 28], // ORCHID
  ["2001:20::", 28], // ORCHIDv2
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation (RFC 9637)
];

function blockList(ranges: Array<[string, number, "ipv4" | "ipv6"]>): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix, type] of ranges) list.addSubnet(address, prefix, type);
  return list;
}

/** The IPv4 address `a.b.c.d` as the two IPv6 groups that carry it, e.g. `a00:0` for 10.0.0.0. */
function asGroups(v4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Private IPv4, also as the IPv6 addresses a socket would reach it by: Node's BlockList matches
 * IPv4-mapped addresses (::ffff:a.b.c.d) against IPv4 rules itself; IPv4-compatible ones
 * (::a.b.c.d, which covers :: and ::1) and 6to4 (2002:aabb:ccdd::/48) get rules of their own.
 */
const privateAnywhere = blockList(
  PRIVATE_V4.flatMap(
    ([base, bits]): Array<[string, number, "ipv4" | "ipv6"]> => [
      [base, bits, "ipv4"],
      [`::${asGroups(base)}`, 96 + bits, "ipv6"],
      [`2002:${asGroups(base)}::`, 16 + bits, "ipv6"],
    ],
  ),
);
const refusedGlobalV6 = blockList(REFUSED_GLOBAL_V6.map(([base, bits]) => [base, bits, "ipv6"]));
/** IPv6 addresses judged by the IPv4 address they carry: IPv4-mapped and IPv4-compatible. */
const carriesV4 = blockList([
  ["::ffff:0:0", 96, "ipv6"],
  ["::", 96, "ipv6"],
]);
const globalUnicastV6 = blockList([["2000::", 3, "ipv6"]]);

/**
 * Whether an IP address is on the public internet: false for loopback, private, link-local (cloud
 * metadata), carrier-grade NAT, documentation, benchmarking, multicast and reserved ranges, in IPv4
 * and IPv6 alike (IPv4-mapped, IPv4-compatible and 6to4 IPv6 addresses are judged by their IPv4
 * part; otherwise only 2000::/3 is global, which refuses NAT64, unique local, link-local and
 * multicast), and false for anything that is not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  const unbracketed = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const bare = unbracketed.split("%")[0] ?? "";
  const family = net.isIP(bare);
  if (family === 4) return !privateAnywhere.check(bare, "ipv4");
  if (family !== 6) return false;
  if (privateAnywhere.check(bare, "ipv6")) return false;
  if (carriesV4.check(bare, "ipv6")) return true;
  return globalUnicastV6.check(bare, "ipv6") && !refusedGlobalV6.check(bare, "ipv6");
}

/** The host of a parsed URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function isLocalhost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

function isLoopbackHost(host: string): boolean {
  return isLocalhost(host) || isLoopbackAddress(host);
}

/**
 * The check of an endpoint's URL when it is saved (and again before each send): an absolute
 * http(s) URL with a host and no credentials, at most 2048 characters; https, a public IP literal
 * and a host other than localhost unless `allowPrivate` (development). Host names are not resolved
 * here: `resolvePublicAddress` does that at every connect.
 */
export function checkWebhookUrl(
  raw: string,
  options: TargetOptions,
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
  const host = bareHost(url);
  const loopbackAllowed = options.allowLoopback === true && isLoopbackHost(host);
  if (url.protocol !== "https:" && !options.allowPrivate && !loopbackAllowed) {
    return { ok: false, reason: `The URL must use https. ${PRIVATE_TARGETS_HINT}` };
  }
  if (url.username || url.password) {
    return { ok: false, reason: "The URL must not contain a username or password; send credentials in a header." };
  }
  if (!host) return { ok: false, reason: "The URL must include a host name." };
  if (options.allowPrivate || loopbackAllowed) return { ok: true, url };
  if (net.isIP(host) !== 0 && !isPublicAddress(host)) {
    return {
      ok: false,
      reason: `The URL points at a private or loopback address (${host}); webhooks go only to public addresses. ${PRIVATE_TARGETS_HINT}`,
    };
  }
  if (isLocalhost(host)) {
    return {
      ok: false,
      reason: `The URL points at ${host}; webhooks go only to public addresses. ${PRIVATE_TARGETS_HINT}`,
    };
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
  options: TargetOptions & { resolver?: Resolver },
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const literal = net.isIP(host);
  if (!options.allowPrivate && !options.allowLoopback && literal === 0 && isLocalhost(host)) {
    throw new Error(`refused: ${host} is this machine (loopback); webhooks go only to public addresses.`);
  }
  const found = literal !== 0 ? [{ address: host }] : await (options.resolver ?? systemResolver)(host);
  const checked: Array<{ address: string; family: 4 | 6 }> = [];
  for (const { address } of found) {
    const family = net.isIP(address);
    if (family === 0) throw new Error(`${host} resolved to ${JSON.stringify(address)}, which is not an IP address.`);
    const allowed =
      options.allowPrivate ||
      isPublicAddress(address) ||
      (options.allowLoopback === true && isLoopbackAddress(address));
    if (!allowed) {
      const kind = isLoopbackAddress(address) ? "a loopback address" : "a private address";
      const what = literal !== 0 ? `${address} is ${kind}` : `${host} resolves to ${address}, ${kind}`;
      throw new Error(`refused: ${what}; webhooks go only to public addresses.`);
    }
    checked.push({ address, family: family === 6 ? 6 : 4 });
  }
  const first = checked[0];
  if (!first) throw new Error(`${host} did not resolve to any address.`);
  return first;
}
