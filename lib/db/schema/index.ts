/*
 * The database's tables, by group, as drizzle-kit reads them (drizzle.config.ts) and the code
 * imports them (@/lib/db/schema). Migrations are in drizzle/.
 */
export * from "./events";
export * from "./lots";
export * from "./organizations";
export * from "./outbox";
export * from "./simulated";
export * from "./spends";
export * from "./top-ups";

import type { grants, pointLots } from "./lots";
import type { apiKeys, organizations, users } from "./organizations";
import type { auditLog, events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "./outbox";
import type { simPaymentMethods, simPayments } from "./simulated";
import type { spends } from "./spends";
import type { pointsLedger, refunds, topUps } from "./top-ups";

export type Organization = typeof organizations.$inferSelect;
export type NewOrganization = typeof organizations.$inferInsert;
export type ApiKey = typeof apiKeys.$inferSelect;
export type User = typeof users.$inferSelect;
export type TopUp = typeof topUps.$inferSelect;
export type NewTopUp = typeof topUps.$inferInsert;
export type LedgerEntry = typeof pointsLedger.$inferSelect;
export type SimPaymentMethod = typeof simPaymentMethods.$inferSelect;
export type SimPayment = typeof simPayments.$inferSelect;
export type Refund = typeof refunds.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
export type AuditEntry = typeof auditLog.$inferSelect;
export type Spend = typeof spends.$inferSelect;
export type PointLot = typeof pointLots.$inferSelect;
export type Grant = typeof grants.$inferSelect;
