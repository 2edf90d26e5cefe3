import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PurchaseView } from "@/components/dashboard/purchase/purchase";
import { dashboardContext } from "@/lib/dashboard/context";
import { buyPoints, completeAuthentication, startProviderAuthentication } from "../../buy/actions";
import { loadPurchasePage, type SearchParams } from "./load";

export const metadata: Metadata = { title: "Purchase · Points" };

const actions = { buyPoints, completeAuthentication, startProviderAuthentication };

/**
 * One purchase, its state as it is now, and what to do next; opened from History, and where the buy
 * form lands after every attempt (`?bought=1`, or `?replayed=1` when the form was sent again), so
 * refreshing it only reads: it never sends the purchase again. The buy steps show only in that flow.
 */
export default async function PurchasePage({
  params,
  searchParams,
}: {
  params: Promise<{ topUpId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const context = await dashboardContext();
  const { topUpId } = await params;
  const state = await loadPurchasePage(context, topUpId, await searchParams);
  // Another organisation's purchase is not found, exactly like one that does not exist.
  if (state.kind === "missing") notFound();
  return <PurchaseView state={state} actions={actions} />;
}
