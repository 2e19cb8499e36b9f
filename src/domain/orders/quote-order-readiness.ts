import type { MerchantRepository } from "../registry/merchant-store.ts";
import { loadMerchant } from "../registry/resolve-merchant.ts";
import {
  displayPrice,
  itemReasons,
  leadInstead,
  merchantOrderReasons,
  type OrderBlockReason,
  orderAmount,
  priceItems,
} from "./order-rules.ts";

export interface OrderReadinessDeps {
  merchants: MerchantRepository;
  /** The merchant's connected payment account (app.orders.paymentAccountFor). */
  paymentAccountFor: (abId: string) => Promise<string | null>;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

export interface OrderReadinessQuery {
  ab_id: string;
  product_ids?: string[] | undefined;
  quantities?: number[] | undefined;
}

export interface OrderReadiness {
  ab_id: string;
  /** True when POST /api/orders/create would open a checkout for these products now. */
  ready: boolean;
  blocked_because: OrderBlockReason[];
  /** The merchant side alone (status, trust, payment), whatever the rail and the products. */
  merchant_can_receive_orders: boolean;
  /** What the order would charge, in cents; null without products or with an unpriced one. */
  amount: number | null;
  currency: "eur";
  /** pickup always; delivery when the merchant delivers. */
  fulfillment_types: ("pickup" | "delivery")[];
  items: {
    product_id: string;
    name: string | null;
    quantity: number;
    unit_amount: number | null;
    line_amount: number | null;
    price: string | null;
    status: "priced" | "on_quote" | "price_not_fixed" | "not_found";
  }[];
  order_endpoint: string | null;
  /** The lead to send instead when not ready (a quote request naming the products). */
  lead_instead: ReturnType<typeof leadInstead> | null;
}

/**
 * The tool quote_order_readiness: could this merchant take this order now, for how much, and
 * if not, why and which lead to send instead. Reads only; unknown or archived merchants are
 * MERCHANT_NOT_FOUND like everywhere else. Quantities default to 1.
 */
export async function quoteOrderReadiness(
  deps: OrderReadinessDeps,
  query: OrderReadinessQuery,
): Promise<OrderReadiness> {
  const { profile, assessment } = await loadMerchant(deps, query.ab_id);
  const merchant = profile.merchant;
  const merchantReasons = merchantOrderReasons({
    railEnabled: deps.orderRailEnabled,
    status: merchant.status,
    trustScore: assessment.trust.breakdown.total,
    // Asked only of a merchant set up for payments, as before.
    paymentReady: merchant.paymentSetup && (await deps.paymentAccountFor(merchant.abId)) !== null,
  });
  const productIds = query.product_ids ?? [];
  const quantities = query.quantities ?? productIds.map(() => 1);
  const items = priceItems(profile.products, productIds, quantities);
  const blocked = [...merchantReasons, ...itemReasons(items)];
  const ready = blocked.length === 0 && productIds.length > 0;
  const amount = productIds.length > 0 ? orderAmount(items) : null;
  return {
    ab_id: merchant.abId,
    ready,
    blocked_because: blocked,
    merchant_can_receive_orders: merchantReasons.every((reason) => reason === "order_rail_disabled"),
    amount,
    currency: "eur",
    fulfillment_types: merchant.deliveryEnabled ? ["pickup", "delivery"] : ["pickup"],
    items: items.map((item) => ({
      product_id: item.productId,
      name: item.product?.name ?? null,
      quantity: item.quantity,
      unit_amount: item.unitAmount,
      line_amount: item.unitAmount === null ? null : item.unitAmount * item.quantity,
      price: displayPrice(item.product),
      status: item.status,
    })),
    order_endpoint: ready ? `${deps.baseUrl}/api/orders/create` : null,
    lead_instead: ready ? null : leadInstead(deps.baseUrl, merchant.abId, items),
  };
}
