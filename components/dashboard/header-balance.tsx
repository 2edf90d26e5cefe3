"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { formatPoints } from "@/lib/format";

export interface HeaderBalances {
  /** The spendable balance: the number shown. */
  pointsBalance: number;
  /** Points open disputes hold apart from it, and how many disputes hold them. */
  heldPoints: number;
  heldDisputes: number;
}

/**
 * The header's Points balance. The layout that renders it is kept across navigations between
 * dashboard pages (Next re-renders only the page), so the balance is asked for again after each
 * one: a purchase made through the API shows on the next page, not only after a reload.
 * Points held by a dispute are said under it, apart: they cannot be spent.
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
          } | null>,
      )
      .then((body) => {
        if (body) {
          setBalances({
            pointsBalance: body.points_balance,
            heldPoints: body.held_points,
            heldDisputes: body.held_disputes,
          });
        }
      })
      .catch(() => {});
    return () => controller.abort();
  }, [pathname]);

  return (
    <>
      <div data-testid="points-balance">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Points balance</p>
        <p className="text-xl font-semibold tabular-nums">{formatPoints(balances.pointsBalance)}</p>
      </div>
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
