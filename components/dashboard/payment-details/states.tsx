import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { Alert } from "@/components/ui/alert";
import type { BillingProvider } from "@/lib/billing/provider";
import type { BillingProblemCode } from "@/lib/points/cards/billing-problems";
import { AddPaymentMethod, type AddPaymentMethodActions, type AddPaymentMethodState } from "./add-payment-method";
import {
  PaymentMethodList,
  type PaymentMethodRow,
  type RemoveCardAction,
  type UnusablePaymentMethod,
  UnusablePaymentMethods,
} from "./payment-methods";

/** The page's server actions, handed down from the page. */
export interface PaymentDetailsActions extends AddPaymentMethodActions {
  remove: RemoveCardAction;
}

export interface RefusedPaymentDetailsState {
  problem: BillingProblemCode;
  provider: Pick<BillingProvider, "displayName" | "keyVariable">;
}

/** The billing provider refuses this organisation: only the notice of who can mend it. */
export function RefusedPaymentDetails({ state }: { state: RefusedPaymentDetailsState }) {
  return <BillingProblemNotice code={state.problem} provider={state.provider} />;
}

export interface UnavailablePaymentDetailsState {
  message: string;
  canEdit: boolean;
  addCard: AddPaymentMethodState;
}

/** The provider did not answer: why, and a card can still be added. */
export function UnavailablePaymentDetails({
  state,
  actions,
}: {
  state: UnavailablePaymentDetailsState;
  actions: PaymentDetailsActions;
}) {
  return (
    <>
      <Alert tone="error" title="Payment methods are unavailable right now">
        {state.message}
      </Alert>
      <AddPaymentMethod {...state.addCard} canEdit={state.canEdit} actions={actions} />
    </>
  );
}

export interface ReadyPaymentDetailsState {
  methods: PaymentMethodRow[];
  unusable: UnusablePaymentMethod[];
  showIds: boolean;
  canEdit: boolean;
  addCard: AddPaymentMethodState;
}

/** The saved payment methods, usable then not, and the card to add another. */
export function ReadyPaymentDetails({
  state,
  actions,
}: {
  state: ReadyPaymentDetailsState;
  actions: PaymentDetailsActions;
}) {
  return (
    <>
      <PaymentMethodList
        methods={state.methods}
        showIds={state.showIds}
        canEdit={state.canEdit}
        remove={actions.remove}
      />
      {state.unusable.length > 0 && (
        <UnusablePaymentMethods methods={state.unusable} canEdit={state.canEdit} remove={actions.remove} />
      )}
      <AddPaymentMethod {...state.addCard} canEdit={state.canEdit} actions={actions} />
    </>
  );
}
