import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { textSql } from "@/lib/db/hot";
import { type AuditEntry, auditLog, users } from "@/lib/db/schema";
import { csvText } from "@/lib/format";
import { newOrderedId } from "@/lib/ids";
import { type Actor, currentActor, requestContext } from "@/lib/observability/context";

/** What the audit log records, by name. */
export const AUDIT_ACTIONS = [
  "organization.created",
  "settings.updated",
  "api_key.created",
  "api_key.revoked",
  "member.added",
  "member.removed",
  "member.role_changed",
  "member.password_reset",
  "member.password_changed",
  "payment_method.added",
  "payment_method.removed",
  "payment_method.default_changed",
  "top_up.started",
  "top_up.refund_requested",
  "dispute.settled",
  "points.spent",
  "grant.created",
  "grant.voided",
  "auto_recharge.paused",
  "webhook_endpoint.added",
  "webhook_endpoint.secret_rotated",
  "webhook_endpoint.disabled",
  "webhook_endpoint.enabled",
  "webhook_endpoint.deleted",
  "webhook_endpoint.recovered",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A change made by nobody the request names (a test, a script of the service's own): an operator's. */
const UNNAMED_OPERATOR: Actor = { type: "operator", id: "service" };

/** Who an entry written now names, and the request it was made in: for entries written as SQL too. */
export function auditSource(): { actor: Actor; requestId: string | null } {
  return { actor: currentActor() ?? UNNAMED_OPERATOR, requestId: requestContext()?.requestId ?? null };
}

export interface AuditInput {
  organizationId: string;
  action: AuditAction;
  target: string;
  before?: unknown;
  after?: unknown;
  at: Date;
}

/**
 * Appends an entry in the caller's transaction, so it exists exactly when the change does. The
 * actor and the request id come from the request's context: the signed-in user of a dashboard
 * action, the API key of an API request, the operator of a command.
 */
export async function recordAudit(tx: Db, input: AuditInput): Promise<void> {
  const { actor, requestId } = auditSource();
  await tx.execute(
    textSql(RECORD_AUDIT_SQL, [
      input.organizationId,
      newOrderedId("auditEntry"),
      input.at.toISOString(),
      actor.type,
      actor.id,
      input.action,
      input.target,
      input.before === undefined || input.before === null ? null : JSON.stringify(input.before),
      input.after === undefined || input.after === null ? null : JSON.stringify(input.after),
      requestId,
    ]),
  );
}

/** An audit entry as SQL expressions, selected `from` a statement's sources. */
export interface AuditRowSql {
  organizationId: string;
  id: string;
  at: string;
  actorType: string;
  actorId: string;
  action: string;
  target: string;
  before: string;
  after: string;
  requestId: string;
  from?: string;
}

/**
 * The one insert into `audit_log`, as SQL: recordAudit above and the one-statement spend use it,
 * so an entry's columns are written in one place.
 */
export function insertAuditSql(row: AuditRowSql): string {
  return `insert into audit_log (organization_id, id, at, actor_type, actor_id, action, target, before, after, request_id)
  select ${row.organizationId}, ${row.id}, ${row.at}, ${row.actorType}, ${row.actorId}, ${row.action}, ${row.target}, ${row.before}, ${row.after}, ${row.requestId}${
    row.from
      ? `
  from ${row.from}`
      : ""
  }`;
}

const RECORD_AUDIT_SQL = insertAuditSql({
  organizationId: "$1",
  id: "$2",
  at: "$3::timestamptz",
  actorType: "$4",
  actorId: "$5",
  action: "$6",
  target: "$7",
  before: "$8::jsonb",
  after: "$9::jsonb",
  requestId: "$10",
});

export interface AuditEntryJson {
  id: string;
  at: string;
  actor: { type: Actor["type"]; id: string };
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  request_id: string | null;
}

export function toAuditJson(entry: AuditEntry): AuditEntryJson {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: { type: entry.actorType as Actor["type"], id: entry.actorId },
    action: entry.action,
    target: entry.target,
    before: entry.before,
    after: entry.after,
    request_id: entry.requestId,
  };
}

export interface AuditFilter {
  organizationId?: string;
  action?: string;
  actorType?: Actor["type"];
  from?: Date;
  before?: Date;
  limit?: number;
}

/** Entries newest first, filtered; every organisation's when none is named (the operator's view). */
export async function listAudit(db: Db, filter: AuditFilter): Promise<AuditEntry[]> {
  const where: SQL[] = [];
  if (filter.organizationId) where.push(eq(auditLog.organizationId, filter.organizationId));
  if (filter.action) where.push(eq(auditLog.action, filter.action));
  if (filter.actorType) where.push(eq(auditLog.actorType, filter.actorType));
  if (filter.from) where.push(gte(auditLog.at, filter.from));
  if (filter.before) where.push(lt(auditLog.at, filter.before));
  return db
    .select()
    .from(auditLog)
    .where(where.length > 0 ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(filter.limit ?? 200);
}

export const AUDIT_ACTOR_TYPES = ["user", "api_key", "operator"] as const;

/** The Audit page's filters, from its URL: unknown values are no filter. */
export function parseAuditFilters(params: Record<string, string | string[] | undefined>): {
  action?: AuditAction;
  actorType?: Actor["type"];
} {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const action = one(params.action);
  const actorType = one(params.actor);
  return {
    ...((AUDIT_ACTIONS as readonly string[]).includes(action ?? "") ? { action: action as AuditAction } : {}),
    ...((AUDIT_ACTOR_TYPES as readonly string[]).includes(actorType ?? "")
      ? { actorType: actorType as Actor["type"] }
      : {}),
  };
}

const CSV_COLUMNS = ["at", "actor_type", "actor_id", "action", "target", "before", "after", "request_id"] as const;

/** The entries as CSV (RFC 4180, formula-safe), before and after as JSON. */
export function auditCsv(entries: AuditEntry[]): string {
  const rows = entries.map((entry) =>
    [
      entry.at.toISOString(),
      entry.actorType,
      entry.actorId,
      entry.action,
      entry.target,
      entry.before === null ? "" : JSON.stringify(entry.before),
      entry.after === null ? "" : JSON.stringify(entry.after),
      entry.requestId ?? "",
    ]
      .map(csvText)
      .join(","),
  );
  return [CSV_COLUMNS.join(","), ...rows].map((row) => `${row}\r\n`).join("");
}

/** Who each entry names, in words: a person's email (or that they are gone), an API key, an operator. */
export async function actorLabels(db: Db, entries: AuditEntry[]): Promise<Map<string, string>> {
  const userIds = [...new Set(entries.filter((entry) => entry.actorType === "user").map((entry) => entry.actorId))];
  const people = userIds.length
    ? await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds))
    : [];
  const emailOf = new Map(people.map((person) => [person.id, person.email]));
  return new Map(
    entries.map((entry) => [
      entry.id,
      entry.actorType === "user"
        ? (emailOf.get(entry.actorId) ?? `Former user ${entry.actorId}`)
        : entry.actorType === "api_key"
          ? `API key ${entry.actorId}`
          : `Operator (${entry.actorId})`,
    ]),
  );
}
