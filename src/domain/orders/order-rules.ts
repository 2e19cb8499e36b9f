import { ORDER_MIN_TRUST } from "../capabilities.ts";
import { formatPrice } from "../format.ts";
import type { Merchant, Product } from "../merchant.ts";

/**
 * The rules an order must pass, as plain functions. Reason codes:
 * - order_rail_disabled: PUBLIC_ORDER_RAIL_ENABLED is false (everyone gets ORDER_DISABLED);
 * - merchant_not_active: the merchant is not ACTIVE (probation, paused, suspended);
 * - trust_score_below_order_minimum: trust below 55;
 * - payment_not_setup: no connected payment account;
 * - product_not_found: a product id the merchant does not sell;
 * - product_on_quote: a product without a price (send a lead);
 * - product_price_not_fixed: a "from" or hourly price, which cannot be charged as it stands (send a lead);
 * - delivery_not_offered: delivery asked from a merchant that does not deliver.
 */
export type OrderBlockReason =
  | "order_rail_disabled"
  | "merchant_not_active"
  | "trust_score_below_order_minimum"
  | "payment_not_setup"
  | "product_not_found"
  | "product_on_quote"
  | "product_price_not_fixed"
  | "delivery_not_offered";

export interface MerchantOrderFacts {
  railEnabled: boolean;
  status: Merchant["status"];
  trustScore: number;
  /** True when the merchant has payment set up and a connected account to pay into. */
  paymentReady: boolean;
}

/** Reasons the merchant cannot take an order, the rail first. */
export function merchantOrderReasons(facts: MerchantOrderFacts): OrderBlockReason[] {
  const reasons: OrderBlockReason[] = [];
  if (!facts.railEnabled) reasons.push("order_rail_disabled");
  if (facts.status !== "ACTIVE") reasons.push("merchant_not_active");
  if (facts.trustScore < ORDER_MIN_TRUST) reasons.push("trust_score_below_order_minimum");
  if (!facts.paymentReady) reasons.push("payment_not_setup");
  return reasons;
}

/** Reasons answered 403 ORDER_TRUST_TOO_LOW (the others are 400 ORDER_DISABLED). */
export const TRUST_REASONS: readonly OrderBlockReason[] = ["trust_score_below_order_minimum", "payment_not_setup"];

export type ItemStatus = "priced" | "on_quote" | "price_not_fixed" | "not_found";

export interface PricedItem {
  productId: string;
  quantity: number;
  product: Product | null;
  status: ItemStatus;
  /** Unit price in cents when the product can be charged as listed. */
  unitAmount: number | null;
}

/** Only fixed prices are charged: "on quote", "from" and hourly prices need the merchant's quote. */
export function itemStatus(product: Product | null): ItemStatus {
  if (!product) return "not_found";
  if (product.priceCents === null || product.pricingModel === "on_quote") return "on_quote";
  if (product.pricingModel !== "fixed" || product.priceCents <= 0) return "price_not_fixed";
  return "priced";
}

export function priceItems(products: readonly Product[], productIds: readonly string[], quantities: readonly number[]) {
  const byId = new Map(products.map((product) => [product.productId, product]));
  return productIds.map((productId, index): PricedItem => {
    const product = byId.get(productId) ?? null;
    const status = itemStatus(product);
    return {
      productId,
      quantity: quantities[index] ?? 1,
      product,
      status,
      unitAmount: status === "priced" && product ? product.priceCents : null,
    };
  });
}

const ITEM_REASONS: [ItemStatus, OrderBlockReason][] = [
  ["not_found", "product_not_found"],
  ["on_quote", "product_on_quote"],
  ["price_not_fixed", "product_price_not_fixed"],
];

/** The product-side reasons, in a fixed order whatever the order of the items. */
export function itemReasons(items: readonly PricedItem[]): OrderBlockReason[] {
  return ITEM_REASONS.filter(([status]) => items.some((item) => item.status === status)).map(([, reason]) => reason);
}

/** Total in cents, or null when an item has no chargeable price. */
export function orderAmount(items: readonly PricedItem[]): number | null {
  let total = 0;
  for (const item of items) {
    if (item.unitAmount === null) return null;
    total += item.unitAmount * item.quantity;
  }
  return total;
}

export function displayPrice(product: Product | null): string | null {
  return product ? formatPrice(product) : null;
}

/** The lead to send instead of an order: a quote request naming the products, in French for the merchant. */
export function leadInstead(baseUrl: string, abId: string, items: readonly PricedItem[]) {
  const lines = items
    .filter((item) => item.product)
    .map((item) => `${item.quantity} × ${item.product?.name ?? item.productId}`);
  const firstBrick = items.find((item) => item.product)?.product?.brickId;
  return {
    endpoint: `${baseUrl}/api/contact/brick`,
    method: "POST" as const,
    example_payload: {
      ab_id: abId,
      ...(firstBrick && items.length === 1 ? { brick_id: firstBrick } : {}),
      contact_name: "<customer name>",
      contact_email: "<customer email>",
      lead_type: "quote",
      message:
        lines.length > 0
          ? `Bonjour, je souhaite commander : ${lines.join(", ")}. Merci de me confirmer le prix et la disponibilité.`
          : "Bonjour, je souhaite passer une commande. Merci de me recontacter.",
    },
  };
}
