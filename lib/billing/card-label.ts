import type { ProviderPaymentMethod } from "./provider";

const brandNames: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
};

/** How a card is named wherever a person sees it: its brand and last four digits. */
export function paymentMethodLabel(method: Pick<ProviderPaymentMethod, "brand" | "last4">): string {
  const brand = brandNames[method.brand] ?? method.brand.charAt(0).toUpperCase() + method.brand.slice(1);
  return `${brand} •••• ${method.last4}`;
}
