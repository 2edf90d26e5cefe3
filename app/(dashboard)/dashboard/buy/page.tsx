import type { Metadata } from "next";
import { BuyChoose } from "@/components/dashboard/buy/choose";
import { BuyConfirm } from "@/components/dashboard/buy/confirm";
import { BuyUnavailable } from "@/components/dashboard/buy/unavailable";
import { dashboardContext } from "@/lib/dashboard/context";
import { buyPoints } from "./actions";
import { loadBuyPage, type SearchParams } from "./load";

export const metadata: Metadata = { title: "Buy Points · Points" };

/**
 * Buy Points in two server-rendered steps driven by the URL: choose (currency, bundle, card), then
 * confirm (the exact amount and the card) and buy. The purchase's reference is drawn once (./load.ts)
 * and carried through both steps in the URL and the form, so every re-send is the same purchase.
 */
export default async function BuyPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const context = await dashboardContext();
  const state = await loadBuyPage(context, await searchParams);
  if (state.kind === "unavailable") return <BuyUnavailable state={state} provider={context.runtime.provider} />;
  if (state.kind === "confirm") return <BuyConfirm state={state} action={buyPoints} />;
  return <BuyChoose state={state} />;
}
