import type { ReactNode } from "react";

const tones = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  red: "bg-rose-50 text-rose-800 ring-rose-600/20",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20",
  blue: "bg-sky-50 text-sky-800 ring-sky-600/20",
  slate: "bg-slate-100 text-slate-700 ring-slate-500/20",
  indigo: "bg-indigo-50 text-indigo-800 ring-indigo-600/20",
} as const;

export type BadgeTone = keyof typeof tones;

export function Badge({ tone = "slate", children }: { tone?: BadgeTone; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}
    >
      {children}
    </span>
  );
}

const statusTones: Record<string, BadgeTone> = {
  paid: "green",
  failed: "red",
  awaiting_payment: "amber",
  processing: "blue",
  pending: "slate",
};

const statusLabels: Record<string, string> = {
  paid: "Paid",
  failed: "Failed",
  awaiting_payment: "Awaiting payment",
  processing: "Processing",
  pending: "Pending",
};

/**
 * A purchase's status for people. `attention`: unresolved for over an hour (lib/points/views/attention.ts),
 * said as what is happening: the payment is still being confirmed with the card's bank.
 */
export function StatusBadge({ status, attention = false }: { status: string; attention?: boolean }) {
  if (attention) return <Badge tone="amber">Confirming with the bank</Badge>;
  return <Badge tone={statusTones[status] ?? "slate"}>{statusLabels[status] ?? status}</Badge>;
}
