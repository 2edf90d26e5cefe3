import { cache } from "react";
import { type Balances, getBalances } from "@/lib/points/after-payment/view";
import { getRuntime } from "@/lib/server/runtime";

/**
 * The organisation's balances, read once per page render and shared by the layout's header and the
 * page itself (each asks). Read twice, a credit committed between the two reads (an auto-recharge,
 * a purchase settled by its webhook) showed the old balance in the header beside the new one on
 * the Overview. React keeps this only inside a server component render.
 */
export const balancesOfRender = cache(async (organizationId: string): Promise<Balances> => {
  const runtime = await getRuntime();
  return getBalances(runtime.db, organizationId);
});
