import Link from "next/link";
import type { ReactNode } from "react";
import { HeaderBalance } from "@/components/dashboard/header-balance";
import { NavLink } from "@/components/dashboard/nav-link";
import { SignOutButton } from "@/components/dashboard/sign-out-button";
import { Badge } from "@/components/ui/badge";
import { balancesOfRender } from "@/lib/dashboard/balances";
import { requireUser } from "@/lib/dashboard/session";
import { lowBalanceThresholdOf } from "@/lib/points/recharge/load-balance-alerts";
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

function DashboardNav({ className }: { className: string }) {
  return (
    <nav aria-label="Dashboard">
      <ul className={className}>
        {NAV.map(([href, label]) => (
          <li key={href}>
            <NavLink href={href}>{label}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const runtime = await getRuntime();
  const [balances, lowBalanceThreshold] = await Promise.all([
    balancesOfRender(user.organizationId),
    lowBalanceThresholdOf(runtime.db, user.organizationId),
  ]);
  return (
    <div className="min-h-screen">
      <header className="relative border-b border-slate-200 bg-white print:hidden">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-2 sm:px-6 sm:py-3">
          <div className="flex min-w-0 items-center gap-3">
            <span className="inline-flex h-8 w-8 shrink-0 items-center justify-center rounded-lg bg-indigo-600 text-sm font-bold text-white">
              P
            </span>
            <div className="min-w-0">
              <p className="truncate text-sm font-semibold leading-tight">{user.organizationName}</p>
              <p className="truncate text-xs text-slate-500">
                {user.email} · <Badge tone={user.role === "admin" ? "indigo" : "slate"}>{user.role}</Badge>
              </p>
            </div>
          </div>
          <div className="flex shrink-0 items-center gap-3 sm:gap-4">
            <div className="text-right">
              <HeaderBalance initial={{ ...balances, lowBalanceThreshold }} />
            </div>
            <div className="hidden sm:block">
              <SignOutButton action={signOutAction} />
            </div>
            {/* On a phone the tabs and Sign out open from a menu: the page starts under one row. */}
            <details className="sm:hidden" data-testid="dashboard-menu">
              <summary className="flex cursor-pointer list-none items-center gap-1.5 rounded-md border border-slate-300 px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
                <span aria-hidden="true">☰</span> Menu
              </summary>
              <div className="absolute inset-x-0 top-full z-20 space-y-3 border-b border-slate-200 bg-white px-4 pt-3 pb-4 shadow-lg">
                <DashboardNav className="grid grid-cols-2 gap-1" />
                <SignOutButton action={signOutAction} />
              </div>
            </details>
          </div>
        </div>
        {/* From a tablet up the tabs sit under the header, wrapping onto more lines rather than hiding. */}
        <div className="mx-auto hidden max-w-6xl px-2 sm:block sm:px-4">
          <DashboardNav className="flex flex-wrap gap-1 pb-2" />
        </div>
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
