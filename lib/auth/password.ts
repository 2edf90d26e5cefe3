import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { randomString } from "@/lib/ids";

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's current recommendation for scrypt: N=2^17, r=8, p=1 (128 MiB and a few hundred ms per hash). */
export const PASSWORD_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
/**
 * The unit tests make hundreds of organisations, each with a hashed password; under vitest
 * (NODE_ENV=test) hashes are made cheaper so the suites stay fast. Never in development or
 * production, and the upgrade-on-sign-in test holds the production cost to its word.
 */
const TEST_COST: ScryptCost = { N: 2 ** 12, r: 8, p: 1 };
const KEY_LENGTH = 32;

export function currentCost(): ScryptCost {
  return process.env.NODE_ENV === "test" && process.env.POINTS_PRODUCTION_PASSWORD_COST !== "1"
    ? TEST_COST
    : PASSWORD_COST;
}

/**
 * At most this many hashes run at once, and at most QUEUE_LIMIT wait: scrypt at this cost holds
 * a libuv thread and 128 MiB for a few hundred milliseconds, so a flood of sign-ins must not take
 * every thread (the database driver and file reads share them) or the memory.
 */
const MAX_CONCURRENT = 2;
const QUEUE_LIMIT = 64;
let running = 0;
const waiting: (() => void)[] = [];

/** Too many password checks are waiting already: the caller answers "try again shortly". */
export class PasswordHashingBusyError extends Error {
  constructor() {
    super("Too many sign-ins are being checked right now; try again in a moment.");
    this.name = "PasswordHashingBusyError";
  }
}

async function withHashSlot<T>(run: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) {
    if (waiting.length >= QUEUE_LIMIT) throw new PasswordHashingBusyError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await run();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

function derive(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  // maxmem must exceed 128 * N * r; twice that leaves room for the salt and key buffers.
  return withHashSlot(() => scrypt(password, salt, length, { ...cost, maxmem: 256 * cost.N * cost.r }));
}

/**
 * The rule for a password a person chooses (changing their own): 12 to 256 characters, taken as
 * typed (spaces count; a passphrase is welcome). Generated passwords (20 characters) keep to it.
 * Length is what makes a password hard to guess; the upper bound only keeps a pasted novel from
 * reaching scrypt.
 */
export const CHOSEN_PASSWORD_MIN_LENGTH = 12;
export const CHOSEN_PASSWORD_MAX_LENGTH = 256;

/** What is wrong with a chosen password, as a sentence for the person choosing it; null when it will do. */
export function chosenPasswordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < CHOSEN_PASSWORD_MIN_LENGTH) {
    return `Use at least ${CHOSEN_PASSWORD_MIN_LENGTH} characters${length > 0 ? ` (this has ${length})` : ""}.`;
  }
  if (length > CHOSEN_PASSWORD_MAX_LENGTH) return `Use at most ${CHOSEN_PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

/**
 * A password made for a person (an organisation's first admin, a new member, a reset): returned
 * once, to be shown once, with the hash that is all the database keeps.
 */
export async function generatePassword(): Promise<{ password: string; passwordHash: string }> {
  const password = randomString(20);
  return { password, passwordHash: await hashPassword(password) };
}

/** scrypt with a random salt; the parameters are stored with the hash so they can change later. */
export async function hashPassword(password: string, cost: ScryptCost = currentCost()): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, KEY_LENGTH, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Whether a stored hash was made at a lower cost than today's: it is upgraded at the next sign-in. */
export function needsRehash(stored: string, cost: ScryptCost = currentCost()): boolean {
  const [, n, rr, pp] = stored.split("$");
  return Number(n) < cost.N || Number(rr) < cost.r || Number(pp) < cost.p;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, rr, pp, saltB64, keyB64] = stored.split("$");
  if (scheme !== "scrypt" || !saltB64 || !keyB64) return false;
  const cost = { N: Number(n), r: Number(rr), p: Number(pp) };
  // A stored cost outside these bounds is not ours: refuse it rather than let it pick the work.
  if (!Number.isInteger(Math.log2(cost.N)) || cost.N < 2 ** 10 || cost.N > 2 ** 20 || cost.r > 32 || cost.p > 4)
    return false;
  const expected = Buffer.from(keyB64, "base64");
  const actual = await derive(password, Buffer.from(saltB64, "base64"), expected.length, cost);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
