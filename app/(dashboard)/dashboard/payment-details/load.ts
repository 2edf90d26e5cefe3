import { headers } from "next/headers";
import type { PaymentDetailsNoticesProps } from "@/components/dashboard/payment-details/notices";
import type {
  ReadyPaymentDetailsState,
  RefusedPaymentDetailsState,
  UnavailablePaymentDetailsState,
} from "@/components/dashboard/payment-details/states";
import type { PageContext } from "@/lib/dashboard/context";
import { deploymentUrl } from "@/lib/dashboard/deployment-url";
import { getPaymentDetails } from "@/lib/points/cards/payment-details";
import { testCardBehaviour } from "@/lib/points/cards/test-cards";
import { curlExample } from "./curl-example";

/** The Payment details page by what the billing provider answered, with what the page says above it. */
export type PaymentDetailsPageState = { notices: PaymentDetailsNoticesProps } & (
  | ({ kind: "refused" } & RefusedPaymentDetailsState)
  | ({ kind: "unavailable" } & UnavailablePaymentDetailsState)
  | ({ kind: "ready" } & ReadyPaymentDetailsState)
);

/** Reads the organisation's payment details and shapes them for the page; `added` and `removed` come from the URL. */
export async function loadPaymentDetailsPage(
  { user, runtime }: PageContext,
  { added, removed }: Record<string, string | string[] | undefined>,
): Promise<PaymentDetailsPageState> {
  const details = await getPaymentDetails(runtime, user.organizationId);
  const requestHeaders = await headers();
  const baseUrl = deploymentUrl((name) => requestHeaders.get(name));
  // Spec 2.3: the IDs the API uses are shown once API Point purchases are enabled.
  const showIds = details.apiPurchasesEnabled;
  const canEdit = user.role === "admin";
  const notices: PaymentDetailsNoticesProps = {
    added: added === "1",
    removed: removed === "1" ? "card" : removed === "default" ? "default" : null,
    showIds,
  };

  if (details.status === "refused") {
    return { kind: "refused", notices, problem: details.problem, provider: runtime.provider };
  }
  const addCard = {
    testCards: details.capabilities.testCards,
    saved: details.status === "ok" ? details.savedKinds : [],
  };
  if (details.status === "unavailable") {
    return { kind: "unavailable", notices, message: details.message, canEdit, addCard };
  }
  return {
    kind: "ready",
    notices,
    showIds,
    canEdit,
    addCard,
    methods: details.methods.map((method) => ({
      ...method,
      showId: showIds,
      behaviour: testCardBehaviour(method.kind),
      curl: showIds ? curlExample({ baseUrl, paymentSourceId: method.id, currency: details.currency }) : undefined,
    })),
    unusable: details.unusable,
  };
}
