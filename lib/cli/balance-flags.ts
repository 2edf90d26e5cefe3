import { BUNDLES, type Bundle } from "@/lib/catalog";
import type { BalanceSettings } from "@/lib/points/recharge/balance-settings";
import { type FlagSpec, flagValue, type ParsedArgs, parseChoice, parsePositiveInteger } from "./args";

/** `org update`'s flags for the low-balance threshold and auto-recharge (docs/contract.md §9). */
export const balanceFlags: FlagSpec[] = [
  { name: "low-balance-threshold", kind: "value" },
  { name: "auto-recharge", kind: "value" },
  { name: "auto-recharge-below", kind: "value" },
  { name: "auto-recharge-points", kind: "value" },
  { name: "auto-recharge-monthly-max", kind: "value" },
];

/** What the flags change; the rest keeps its saved value. */
export interface BalanceChanges {
  lowBalanceThreshold?: number | null;
  autoRecharge?: Partial<BalanceSettings["autoRecharge"]>;
}

/** The flags given, or undefined when none was. */
export function parseBalanceFlags(parsed: ParsedArgs): BalanceChanges | undefined {
  const changes: BalanceChanges = {};
  const auto: Partial<BalanceSettings["autoRecharge"]> = {};
  const threshold = flagValue(parsed, "low-balance-threshold");
  if (threshold !== undefined)
    changes.lowBalanceThreshold =
      threshold === "none" ? null : parsePositiveInteger(threshold, "low-balance-threshold", true);
  const enabled = flagValue(parsed, "auto-recharge");
  if (enabled !== undefined) auto.enabled = parseChoice(enabled, "auto-recharge", ["on", "off"]) === "on";
  const below = flagValue(parsed, "auto-recharge-below");
  if (below !== undefined) auto.below = parsePositiveInteger(below, "auto-recharge-below", true);
  const points = flagValue(parsed, "auto-recharge-points");
  if (points !== undefined) {
    const bundles = BUNDLES.map(String);
    auto.points = Number(parseChoice(points, "auto-recharge-points", bundles)) as Bundle;
  }
  const max = flagValue(parsed, "auto-recharge-monthly-max");
  if (max !== undefined)
    auto.monthlyMax = max === "none" ? null : parsePositiveInteger(max, "auto-recharge-monthly-max", true);
  if (Object.keys(auto).length > 0) changes.autoRecharge = auto;
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/** The saved settings with the flags' changes applied. */
export function applyBalanceChanges(saved: BalanceSettings, changes: BalanceChanges): BalanceSettings {
  return {
    lowBalanceThreshold:
      changes.lowBalanceThreshold !== undefined ? changes.lowBalanceThreshold : saved.lowBalanceThreshold,
    autoRecharge: { ...saved.autoRecharge, ...changes.autoRecharge },
  };
}
