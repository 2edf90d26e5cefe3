import type { Organization } from "@/lib/db/schema";
import type { ProvisionedPaymentMethod } from "@/lib/points/accounts/organizations";
import type { PointsError } from "@/lib/points/errors";
import type { PurchaseResult } from "@/lib/points/purchase";

/** Where the command writes; the entry point passes the process's streams. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The payment method fields of docs/contract.md §7's JSON. */
export interface PaymentMethodJson {
  id: string;
  label: string;
  kind: string | null;
  is_default: boolean;
}

export function paymentMethodsJson(methods: readonly ProvisionedPaymentMethod[]): PaymentMethodJson[] {
  return methods.map((method) => ({
    id: method.id,
    label: method.label,
    kind: method.kind,
    is_default: method.isDefault,
  }));
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

export function paymentMethodLines(methods: readonly ProvisionedPaymentMethod[]): string[] {
  if (methods.length === 0) return ["  payment methods: none"];
  return [
    "  payment methods (payment_source_id), in --default-card order:",
    ...methods.map(
      (method, index) =>
        `    ${index}  ${method.id}  ${method.label.padEnd(20)} ${method.kind ?? ""}${method.isDefault ? "  (default)" : ""}`,
    ),
  ];
}

/** The organisation's operator settings as a person reads them. */
export function settingsLines(organization: Organization, simulateOutage?: boolean): string[] {
  const limit = (value: number | null) => (value === null ? "none" : String(value));
  const frequency =
    organization.frequencyLimitCount !== null && organization.frequencyLimitWindowSeconds !== null
      ? `${organization.frequencyLimitCount} purchases per ${organization.frequencyLimitWindowSeconds} s`
      : "none";
  const lines = [
    "  settings:",
    `    currency:               ${organization.currency ?? "none"}`,
    `    API purchases:          ${organization.apiPurchasesEnabled ? "enabled" : "disabled"}`,
    `    available for API:      ${organization.apiAvailable ? "yes" : "no"}`,
    `    max points per top-up:  ${limit(organization.maxPointsPerTopUp)}`,
    `    max points balance:     ${limit(organization.maxPointsBalance)}`,
    `    frequency limit:        ${frequency}`,
    `    daily points limit:     ${limit(organization.dailyPointsLimit)}`,
  ];
  if (simulateOutage !== undefined) lines.push(`    simulated outage:       ${simulateOutage ? "on" : "off"}`);
  if (organization.lowBalanceThreshold !== null)
    lines.push(`    low balance below:      ${organization.lowBalanceThreshold} Points`);
  if (organization.autoRechargeEnabled) {
    const cap = organization.autoRechargeMonthlyMax;
    const paused = organization.autoRechargePausedReason;
    lines.push(
      `    auto-recharge:          ${organization.autoRechargePoints} Points below ${organization.autoRechargeBelow}` +
        `${cap === null ? "" : `, at most ${cap} a month`}${paused === null ? "" : ` (paused: ${paused})`}`,
    );
  }
  return lines;
}

export interface SettledTopUpJson {
  top_up_id: string;
  organization_id: string;
  reference: string;
  status: string;
  outcome: string;
}

export function settledJson(results: readonly PurchaseResult[]): SettledTopUpJson[] {
  return results.map((result) => ({
    top_up_id: result.topUp.id,
    organization_id: result.topUp.organizationId,
    reference: result.topUp.reference,
    status: result.topUp.status,
    outcome: result.outcome,
  }));
}

/**
 * A refusal from lib/points, said with the command's flags: lib/points names a wrong input by its
 * field (details.fields: { defaultCardIndex: "must be…" }), and the operator knows it as a flag.
 */
const FLAG_SENTENCES: Record<string, (problem: string) => string> = {
  name: (problem) => `--name ${problem}`,
  cards: (problem) => `--card ${problem}`,
  defaultCardIndex: (problem) => `--default-card ${problem}`,
  simulateOutage: (problem) => `--simulate-outage ${problem}`,
  billingCustomerId: (problem) => `--stripe-customer ${problem}`,
  role: (problem) => `--role ${problem}`,
  scope: (problem) => `--scope ${problem}`,
  dailyPointsCap: (problem) => `--daily-points-cap ${problem}`,
};

export function refusalMessage(error: PointsError): string {
  const fields = error.details.fields;
  if (typeof fields !== "object" || fields === null) return error.message;
  for (const [field, problem] of Object.entries(fields)) {
    const sentence = FLAG_SENTENCES[field];
    if (sentence && typeof problem === "string") return sentence(problem);
  }
  return error.message;
}
