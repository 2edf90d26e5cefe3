"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { formatPoints } from "@/lib/format";

/**
 * The header's Points balance. The layout that renders it is kept across navigations between
 * dashboard pages (Next re-renders only the page), so the balance is asked for again after each
 * one: a purchase made through the API shows on the next page, not only after a reload.
 */
export function HeaderBalance({ initial }: { initial: number }) {
  const pathname = usePathname();
  const [balance, setBalance] = useState(initial);
  // A ref, not state: changing it must not re-run (and so abort) the request it starts.
  const shownFor = useRef(pathname);

  // A server render (a reload, a redirect after a purchase) brings a fresh figure: take it.
  useEffect(() => setBalance(initial), [initial]);

  useEffect(() => {
    if (pathname === shownFor.current) return;
    shownFor.current = pathname;
    const controller = new AbortController();
    fetch("/dashboard/balance", { cache: "no-store", signal: controller.signal })
      .then((response) => (response.ok ? (response.json() as Promise<{ points_balance: number }>) : null))
      .then((body) => {
        if (body) setBalance(body.points_balance);
      })
      .catch(() => {});
    return () => controller.abort();
  }, [pathname]);

  return <p className="text-xl font-semibold tabular-nums">{formatPoints(balance)}</p>;
}
