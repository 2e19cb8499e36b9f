import type { MerchantState } from "../../schemas/envelope.ts";

/** Order-only reasons: they never explain why contact is refused. */
const ORDER_ONLY_REASONS = new Set([
  "order_rail_disabled",
  "merchant_on_probation",
  "trust_score_below_order_minimum",
  "payment_not_setup",
]);

/** The reasons in a merchant state that explain a refused contact (CONTACT_DISABLED's blocked_because). */
export function contactBlockers(state: MerchantState): string[] {
  const reasons = state.blocked_because.filter((reason) => !ORDER_ONLY_REASONS.has(reason));
  return reasons.length > 0 ? reasons : [...state.blocked_because];
}
