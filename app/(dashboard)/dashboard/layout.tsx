import Link from "next/link";
import type { ReactNode } from "react";
import { HeaderBalance } from "@/components/dashboard/header-balance";
import { NavLink } from "@/components/dashboard/nav-link";
import { SignOutButton } from "@/components/dashboard/sign-out-button";
import { Badge } from "@/components/ui/badge";
import { requireUser } from "@/lib/dashboard/session";
import { getBalances } from "@/lib/points/after-payment/view";
import { lowBalanceThresholdOf } from "@/lib/points/load-balance-alerts";
import { getRuntime } from "@/lib/server/runtime";
import { signOutAction } from "./sign-out";

export const dynamic = "force-dynamic";

const NAV = [
  ["/dashboard", "Overview"],
  ["/dashboard/buy", "Buy Points"],
  ["/dashboard/history", "History"],
  ["/dashboard/payment-details", "Payment details"],
  ["/dashboard/settings", "Settings"],
  ["/dashboard/api-keys", "API keys"],
  ["/dashboard/webhooks", "Webhooks"],
  ["/dashboard/limits", "Limits"],
  ["/dashboard/members", "Members"],
  ["/dashboard/audit", "Audit log"],
  ["/dashboard/account", "Your account"],
] as const;

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const runtime = await getRuntime();
  const [balances, lowBalanceThreshold] = await Promise.all([
    getBalances(runtime.db, user.organizationId),
    lowBalanceThresholdOf(runtime.db, user.organizationId),
  ]);
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white print:hidden">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6">
          <div className="flex items-center gap-3">
            <span className="inline-flex h-8 w-8 items-center justify-center rounded-lg bg-indigo-600 text-sm font-bold text-white">
              P
            </span>
            <div>
              <p className="text-sm font-semibold leading-tight">{user.organizationName}</p>
              <p className="text-xs text-slate-500">
                {user.email} · <Badge tone={user.role === "admin" ? "indigo" : "slate"}>{user.role}</Badge>
              </p>
            </div>
          </div>
          <div className="flex items-center gap-4">
            <div className="text-right">
              <HeaderBalance initial={{ ...balances, lowBalanceThreshold }} />
            </div>
            <SignOutButton action={signOutAction} />
          </div>
        </div>
        {/* Tabs wrap onto more lines on narrow screens: every one stays visible and reachable. */}
        <nav aria-label="Dashboard" className="mx-auto max-w-6xl px-2 sm:px-4">
          <ul className="flex flex-wrap gap-1 pb-2">
            {NAV.map(([href, label]) => (
              <li key={href}>
                <NavLink href={href}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 print:max-w-none print:p-0">{children}</main>
      <footer className="mx-auto max-w-6xl border-t border-slate-200 px-4 py-6 text-sm text-slate-600 sm:px-6 print:hidden">
        <nav aria-label="API documentation" className="flex flex-wrap gap-x-4 gap-y-1">
          <Link href="/docs" className="font-medium text-indigo-700 hover:underline">
            API reference
          </Link>
          <Link href="/docs/guide" className="font-medium text-indigo-700 hover:underline">
            API guide
          </Link>
        </nav>
      </footer>
    </div>
  );
}
