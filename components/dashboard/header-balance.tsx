"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { formatPoints } from "@/lib/format";
import { isLowBalance } from "@/lib/points/recharge/balance-alerts";

export interface HeaderBalances {
  /** The spendable balance: the number shown. */
  pointsBalance: number;
  /** Points open disputes hold apart from it, and how many disputes hold them. */
  heldPoints: number;
  heldDisputes: number;
  /** Below it, a "Low" mark beside the balance; null for no alert. */
  lowBalanceThreshold: number | null;
}

/**
 * The header's Points balance. The layout that renders it is kept across navigations between
 * dashboard pages (Next re-renders only the page), so the balance is asked for again after each
 * one: a purchase made through the API shows on the next page, not only after a reload.
 * Points held by a dispute are said under it, apart: they cannot be spent. Below the organisation's
 * low-balance threshold, a "Low" mark sits beside the number, in words as well as colour.
 */
export function HeaderBalance({ initial }: { initial: HeaderBalances }) {
  const pathname = usePathname();
  const [balances, setBalances] = useState(initial);
  // A ref, not state: changing it must not re-run (and so abort) the request it starts.
  const shownFor = useRef(pathname);

  // A server render (a reload, a redirect after a purchase) brings fresh figures: take them.
  useEffect(() => setBalances(initial), [initial]);

  useEffect(() => {
    if (pathname === shownFor.current) return;
    shownFor.current = pathname;
    const controller = new AbortController();
    fetch("/dashboard/balance", { cache: "no-store", signal: controller.signal })
      .then(
        (response) =>
          (response.ok ? response.json() : null) as Promise<{
            points_balance: number;
            held_points: number;
            held_disputes: number;
            low_balance_threshold: number | null;
          } | null>,
      )
      .then((body) => {
        if (body) {
          setBalances({
            pointsBalance: body.points_balance,
            heldPoints: body.held_points,
            heldDisputes: body.held_disputes,
            lowBalanceThreshold: body.low_balance_threshold,
          });
        }
      })
      .catch(() => {});
    return () => controller.abort();
  }, [pathname]);

  const low = isLowBalance(balances.pointsBalance, balances.lowBalanceThreshold);
  return (
    <>
      <div data-testid="points-balance">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Points balance</p>
        <p className="text-xl font-semibold tabular-nums">{formatPoints(balances.pointsBalance)}</p>
      </div>
      {low && (
        <p className="mt-0.5" data-testid="low-balance-indicator">
          <span className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 ring-1 ring-inset ring-amber-300">
            <span aria-hidden="true">▼</span> Low
            <span className="sr-only">
              {" "}
              balance: below your alert at {formatPoints(balances.lowBalanceThreshold ?? 0)} Points
            </span>
          </span>
        </p>
      )}
      {balances.heldPoints > 0 && (
        <p className="text-xs text-amber-700" data-testid="held-points">
          {formatPoints(balances.heldPoints)}
          <span className="sr-only"> more Points</span> held by{" "}
          {balances.heldDisputes > 1 ? `${balances.heldDisputes} disputes` : "a dispute"}
        </p>
      )}
    </>
  );
}
