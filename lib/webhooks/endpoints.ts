import { and, desc, eq, sql } from "drizzle-orm";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import {
  organizations,
  type RetiredSecret,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "@/lib/db/schema";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { recordAudit } from "@/lib/points/audit";
import { PointsError } from "@/lib/points/errors";
import { EVENT_TYPES, type EventType } from "@/lib/points/events/events";
import { RETRY_FOR_MS } from "./attempt-outcome";
import { newWebhookSecret } from "./signing";
import { checkWebhookUrl, type TargetOptions } from "./target";

/** After a rotation, the old secret signs beside the new one this long, so receivers can switch. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const MAX_ENDPOINTS_PER_ORGANIZATION = 16;
interface WebhookServices {
  db: Db;
  clock: Clock;
}

/** Whether endpoints may be http or private addresses (POINTS_WEBHOOKS_ALLOW_PRIVATE=1: tests, development). */
export function allowPrivateTargets(): boolean {
  return env().POINTS_WEBHOOKS_ALLOW_PRIVATE === "1";
}

/**
 * Where this process lets webhooks go: public https, and under `next dev` (NODE_ENV development) a
 * receiver on this machine too, so `npm run dev` can deliver to one without a variable. A production
 * build never relaxes it unless POINTS_WEBHOOKS_ALLOW_PRIVATE=1.
 */
export function webhookTargets(): TargetOptions {
  return { allowPrivate: allowPrivateTargets(), allowLoopback: process.env.NODE_ENV === "development" };
}

function fieldError(field: string, message: string): PointsError {
  return new PointsError("invalid_request", message, { details: { fields: { [field]: message } } });
}

/** The endpoint's URL, checked as saved: public https only (unless private targets are allowed). */
export function parseEndpointUrl(raw: string, targets: TargetOptions = webhookTargets()): string {
  const checked = checkWebhookUrl(raw.trim(), targets);
  if (!checked.ok) throw fieldError("url", checked.reason);
  return checked.url.toString();
}

/** The event types an endpoint receives: null for all, else known types, each once. */
export function parseEventTypes(raw: string[] | null | undefined): EventType[] | null {
  if (!raw || raw.length === 0) return null;
  const types = [...new Set(raw.map((type) => type.trim()).filter(Boolean))];
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) {
    throw fieldError("events", `Unknown event type ${unknown.join(", ")}: choose from ${EVENT_TYPES.join(", ")}.`);
  }
  return types.length > 0 ? (types as EventType[]) : null;
}

export interface EndpointJson {
  endpoint_id: string;
  url: string;
  events: EventType[] | null;
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  created_at: string;
}

export function toEndpointJson(endpoint: WebhookEndpoint): EndpointJson {
  return {
    endpoint_id: endpoint.id,
    url: endpoint.url,
    events: (endpoint.eventTypes as EventType[] | null) ?? null,
    status: endpoint.status as EndpointJson["status"],
    disabled_reason: endpoint.disabledReason,
    created_at: endpoint.createdAt.toISOString(),
  };
}

/**
 * Adds an endpoint: it receives the events committed from now on (the organisation's counter is
 * where its deliveries start). The secret is returned once, to be shown once.
 */
export async function addEndpoint(
  services: WebhookServices,
  organizationId: string,
  input: { url: string; events?: string[] | null; allowPrivate?: boolean },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = parseEndpointUrl(
    input.url,
    input.allowPrivate === undefined ? webhookTargets() : { allowPrivate: input.allowPrivate },
  );
  const eventTypes = parseEventTypes(input.events);
  const secret = newWebhookSecret();
  const now = services.clock.now();
  const endpoint = await services.db.transaction(async (tx) => {
    const [org] = await tx
      .select({ eventSequence: organizations.eventSequence })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for("update");
    if (!org) throw new PointsError("not_found", `No organisation ${organizationId}.`);
    const [{ count } = { count: 0 }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationId, organizationId));
    if (count >= MAX_ENDPOINTS_PER_ORGANIZATION) {
      throw fieldError(
        "url",
        `An organisation can have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first.`,
      );
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        organizationId,
        id: newId("webhookEndpoint"),
        url,
        eventTypes,
        secret,
        fannedOutThrough: org.eventSequence,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("The endpoint was not saved.");
    await recordAudit(tx, {
      organizationId,
      action: "webhook_endpoint.added",
      target: row.id,
      after: { url, events: eventTypes },
      at: now,
    });
    return row;
  });
  return { endpoint, secret };
}

export async function listEndpoints(db: Db, organizationId: string): Promise<WebhookEndpoint[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
}

/** One endpoint by id; with an organisation, only that organisation's (another's is "not found" alike). */
export async function getEndpoint(
  db: Db,
  endpointId: string,
  organizationId?: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookEndpoint> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(
      organizationId
        ? and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.organizationId, organizationId))
        : eq(webhookEndpoints.id, endpointId),
    );
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (!row) throw new PointsError("not_found", `No webhook endpoint ${endpointId}.`);
  return row;
}

/** Secrets that sign at once at most: the current one and the newest rotated away. */
export const MAX_SIGNING_SECRETS = 10;

/**
 * A new secret, returned once. Every secret rotated away in the last 24 hours keeps signing beside
 * it (up to MAX_SIGNING_SECRETS in all, the oldest dropped first). The endpoint's row is locked
 * while its secrets are read and written, so concurrent rotations each retire the secret the
 * one before it made, and no secret printed to someone is lost.
 */
export async function rotateSecret(
  services: WebhookServices,
  endpointId: string,
  organizationId?: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await services.db.transaction(async (tx) => {
    const current = await getEndpoint(tx, endpointId, organizationId, { forUpdate: true });
    const now = services.clock.now();
    const signsUntil = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
    const retiredSecrets = [{ secret: current.secret, signs_until: signsUntil }, ...stillSigning(current, now)].slice(
      0,
      MAX_SIGNING_SECRETS - 1,
    );
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ secret, retiredSecrets, updatedAt: now })
      .where(and(eq(webhookEndpoints.organizationId, current.organizationId), eq(webhookEndpoints.id, current.id)))
      .returning();
    if (!row) throw new PointsError("not_found", `No webhook endpoint ${endpointId}.`);
    await recordAudit(tx, {
      organizationId: row.organizationId,
      action: "webhook_endpoint.secret_rotated",
      target: row.id,
      after: { previous_secret_signs_until: signsUntil, secrets_signing: retiredSecrets.length + 1 },
      at: now,
    });
    return row;
  });
  return { endpoint, secret };
}

/** The rotated-away secrets still within their 24 hours. */
function stillSigning(endpoint: WebhookEndpoint, now: Date): RetiredSecret[] {
  return endpoint.retiredSecrets.filter((retired) => new Date(retired.signs_until) > now);
}

/** The secrets that sign a delivery now: the current one, and each rotated away in the last 24 hours. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  return [endpoint.secret, ...stillSigning(endpoint, now).map((retired) => retired.secret)];
}

/**
 * Disables an endpoint (an admin, an operator, a 410, three days of failures): nothing more is sent
 * to it, and its deliveries still waiting are given up. `reason` says why, for the dashboard.
 */
export async function disableEndpoint(
  tx: Db,
  endpoint: { organizationId: string; id: string },
  reason: string,
  now: Date,
) {
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ status: "disabled", disabledReason: reason, updatedAt: now })
    .where(and(eq(webhookEndpoints.organizationId, endpoint.organizationId), eq(webhookEndpoints.id, endpoint.id)))
    .returning();
  await tx
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, lockToken: null, lockedUntil: null, updatedAt: now })
    .where(
      and(
        eq(webhookDeliveries.organizationId, endpoint.organizationId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.status, "pending"),
      ),
    );
  return row;
}

/**
 * Enables or disables an endpoint by hand. Enabled again, it receives the events committed from
 * then on: those of the time it was off are in the feed (GET /v3/points/events), not replayed.
 */
export async function setEndpointStatus(
  services: WebhookServices,
  endpointId: string,
  status: "enabled" | "disabled",
  organizationId?: string,
): Promise<WebhookEndpoint> {
  const current = await getEndpoint(services.db, endpointId, organizationId);
  const now = services.clock.now();
  return services.db.transaction(async (tx) => {
    if (status === "disabled") {
      if (current.status === "disabled") return current;
      const disabled = (await disableEndpoint(tx, current, "disabled by hand", now)) ?? current;
      await recordAudit(tx, {
        organizationId: current.organizationId,
        action: "webhook_endpoint.disabled",
        target: current.id,
        before: { status: current.status },
        after: { status: "disabled" },
        at: now,
      });
      return disabled;
    }
    if (current.status === "enabled") return current;
    const [org] = await tx
      .select({ eventSequence: organizations.eventSequence })
      .from(organizations)
      .where(eq(organizations.id, current.organizationId))
      .for("update");
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        status: "enabled",
        disabledReason: null,
        failingSince: null,
        fannedOutThrough: org?.eventSequence ?? current.fannedOutThrough,
        updatedAt: now,
      })
      .where(and(eq(webhookEndpoints.organizationId, current.organizationId), eq(webhookEndpoints.id, endpointId)))
      .returning();
    await recordAudit(tx, {
      organizationId: current.organizationId,
      action: "webhook_endpoint.enabled",
      target: current.id,
      before: { status: current.status, disabled_reason: current.disabledReason },
      after: { status: "enabled" },
      at: now,
    });
    return row ?? current;
  });
}

/** Deletes an endpoint with its deliveries and their attempts. */
export async function deleteEndpoint(services: WebhookServices, endpointId: string, organizationId?: string) {
  const current = await getEndpoint(services.db, endpointId, organizationId);
  await services.db.transaction(async (tx) => {
    await tx
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.organizationId, current.organizationId), eq(webhookEndpoints.id, endpointId)));
    await recordAudit(tx, {
      organizationId: current.organizationId,
      action: "webhook_endpoint.deleted",
      target: current.id,
      before: { url: current.url, events: current.eventTypes, status: current.status },
      at: services.clock.now(),
    });
  });
  return current;
}

export interface DeliveryJson {
  delivery_id: string;
  event_id: string;
  event_sequence: number;
  attempt: number;
  status: "delivered" | "failed" | "pending";
  response_status: number | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export function toDeliveryJson(delivery: WebhookDelivery): DeliveryJson {
  return {
    delivery_id: delivery.id,
    event_id: delivery.eventId,
    event_sequence: delivery.eventSequence,
    attempt: delivery.attempts,
    status: delivery.status as DeliveryJson["status"],
    response_status: delivery.lastResponseStatus,
    error: delivery.lastError,
    next_attempt_at:
      delivery.status === "pending" && delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    created_at: delivery.createdAt.toISOString(),
  };
}

/** An endpoint's deliveries, newest event first. */
export async function listDeliveries(db: Db, endpoint: WebhookEndpoint, limit = 100): Promise<WebhookDelivery[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(eq(webhookDeliveries.organizationId, endpoint.organizationId), eq(webhookDeliveries.endpointId, endpoint.id)),
    )
    .orderBy(desc(webhookDeliveries.eventSequence))
    .limit(limit);
}

/** A delivery's attempts, first to last. */
export async function listAttempts(db: Db, delivery: WebhookDelivery): Promise<WebhookAttempt[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(
      and(eq(webhookAttempts.organizationId, delivery.organizationId), eq(webhookAttempts.deliveryId, delivery.id)),
    )
    .orderBy(webhookAttempts.attempt);
}

/** A delivery sent again from now: pending, due at once, with three more days of retries. */
export function dueAgain(now: Date) {
  return {
    status: "pending",
    nextAttemptAt: now,
    giveUpAt: new Date(now.getTime() + RETRY_FOR_MS),
    lockToken: null,
    lockedUntil: null,
    updatedAt: now,
  } satisfies Partial<typeof webhookDeliveries.$inferInsert>;
}

/** "Send again": a delivery (delivered, failed or waiting) is tried again now, on an enabled endpoint. */
export async function redeliver(
  services: WebhookServices,
  organizationId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const now = services.clock.now();
  const [row] = await services.db
    .update(webhookDeliveries)
    .set(dueAgain(now))
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, deliveryId)))
    .returning();
  if (!row) throw new PointsError("not_found", `No delivery ${deliveryId}.`);
  return row;
}
