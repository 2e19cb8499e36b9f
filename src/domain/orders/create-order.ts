import { createHash, randomUUID } from "node:crypto";
import { ServiceError, validationError } from "../../errors/service-error.ts";
import { logger } from "../../logging.ts";
import { type PaymentProvider, PaymentProviderError } from "../../payments/payment-provider.ts";
import type { Action, MerchantState } from "../../schemas/envelope.ts";
import type { CreateOrderBody } from "../../schemas/orders.ts";
import { ORDER_MAX_AMOUNT_CENTS } from "../../schemas/orders.ts";
import { action } from "../actions.ts";
import { canonicalJson, sha256Hex } from "../canonical-json.ts";
import type { MerchantRepository } from "../registry/merchant-store.ts";
import { loadMerchant } from "../registry/resolve-merchant.ts";
import {
  itemReasons,
  merchantOrderReasons,
  type OrderBlockReason,
  orderAmount,
  type PricedItem,
  priceItems,
  TRUST_REASONS,
} from "./order-rules.ts";
import type { OrderRecord, OrderRepository } from "./order-store.ts";

/** A hosted checkout stays open this long (Stripe allows 30 minutes to 24 hours). */
export const CHECKOUT_TTL_MS = 23 * 3600 * 1000;

export interface CreateOrderDeps {
  merchants: MerchantRepository;
  orders: OrderRepository;
  payments: PaymentProvider | null;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: () => Date;
}

export interface OrderCaller {
  agentId: string | null;
  clientAddress: string;
}

export interface OrderAnswer {
  order_id: string;
  status: "payment_pending";
  ab_id: string;
  fulfillment_type: "pickup" | "delivery";
  items: { product_id: string; name: string; quantity: number; unit_amount: number; line_amount: number }[];
  payment: {
    provider: string;
    payment_intent_id: string | null;
    client_secret: string | null;
    payment_link: string;
    amount: number;
    currency: "eur";
    expires_at: string;
  };
  actions: Action[];
  state: MerchantState;
  /** True when an Idempotency-Key replayed an order created earlier. */
  replayed: boolean;
}

export function orderDisabled(reasons: OrderBlockReason[] = ["order_rail_disabled"], message?: string): ServiceError {
  return new ServiceError(
    "ORDER_DISABLED",
    message ??
      "Orders are closed to public agents (the order rail is disabled); send the purchase intention as a lead to POST /api/contact/brick",
    { blockedBecause: reasons },
  );
}

/**
 * POST /api/orders/create with the rail open. Checks in this order: merchant known (404),
 * products of this merchant (400 VALIDATION_ERROR), merchant ACTIVE (400 ORDER_DISABLED), trust
 * and payment setup (403 ORDER_TRUST_TOO_LOW), chargeable prices (400 ORDER_DISABLED: send a
 * lead), delivery offered and amount bounds (400 VALIDATION_ERROR); then the provider opens a
 * hosted checkout on the merchant's own account and the order is stored as payment_pending.
 * The amount is always computed here from the stored prices, never taken from the caller.
 */
export async function createOrder(
  deps: CreateOrderDeps,
  input: CreateOrderBody,
  caller: OrderCaller,
  idempotencyKey: string | null = null,
): Promise<OrderAnswer> {
  if (!deps.orderRailEnabled) throw orderDisabled();
  const { profile, assessment } = await loadMerchant(deps, input.merchant_id);
  const merchant = profile.merchant;
  const state = assessment.capabilities.state;

  const idempotency = idempotencyKey
    ? {
        scope: `orders:${caller.agentId ?? `ip:${caller.clientAddress}`}`,
        key: idempotencyKey,
        requestHash: sha256Hex(canonicalJson(input)),
      }
    : null;
  if (idempotency) {
    const previous = await deps.orders.findIdempotent(idempotency.scope, idempotency.key);
    if (previous) return replay(deps, previous, idempotency.requestHash, state);
  }

  const items = priceItems(profile.products, input.product_ids, input.quantities);
  const unknown = items.flatMap((item, index) =>
    item.status === "not_found"
      ? [{ path: `product_ids.${index}`, message: `is not a product of merchant ${merchant.abId}` }]
      : [],
  );
  if (unknown.length > 0) throw validationError(unknown);

  const accountId = await deps.orders.paymentAccountFor(merchant.abId);
  const merchantReasons = merchantOrderReasons({
    railEnabled: true,
    status: merchant.status,
    trustScore: assessment.trust.breakdown.total,
    paymentReady: merchant.paymentSetup && accountId !== null,
  });
  if (merchantReasons.includes("merchant_not_active")) {
    throw orderDisabled(
      merchantReasons,
      `Merchant ${merchant.abId} is ${merchant.status} and takes no orders; send a lead if it can be contacted`,
    );
  }
  const trustReasons = merchantReasons.filter((reason) => TRUST_REASONS.includes(reason));
  if (trustReasons.length > 0) {
    throw new ServiceError(
      "ORDER_TRUST_TOO_LOW",
      "The merchant's trust score (at least 55 needed) or payment setup does not allow orders; send a lead instead",
      { blockedBecause: trustReasons, abId: merchant.abId },
    );
  }
  const priceReasons = itemReasons(items);
  if (priceReasons.length > 0) {
    const names = items.filter((item) => item.status !== "priced").map((item) => item.product?.name ?? item.productId);
    throw orderDisabled(
      priceReasons,
      `Not priced for online payment (on quote, "from" or hourly price): ${names.join(", ")}; send a lead (lead_type quote) instead`,
    );
  }
  if (input.fulfillment_type === "delivery" && !merchant.deliveryEnabled) {
    throw validationError([{ path: "fulfillment_type", message: "this merchant does not deliver; use pickup" }]);
  }
  const amount = orderAmount(items);
  if (amount === null || amount <= 0 || amount > ORDER_MAX_AMOUNT_CENTS) {
    throw validationError([
      { path: "quantities", message: `the order total must be between 0.01 and ${ORDER_MAX_AMOUNT_CENTS / 100} EUR` },
    ]);
  }
  if (!deps.payments || !accountId) {
    logger.warn("order rail open without a payment provider (STRIPE_SECRET_KEY unset)", { ab_id: merchant.abId });
    throw new ServiceError("PAYMENT_UNAVAILABLE", "Online payment is not configured on this server; send a lead");
  }

  const orderId = idempotency ? idempotentOrderId(idempotency.scope, idempotency.key) : randomUUID();
  const now = deps.now();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + CHECKOUT_TTL_MS).toISOString();
  const micrositeUrl = `${deps.baseUrl}/m/${merchant.abId}/`;
  let checkout: Awaited<ReturnType<PaymentProvider["createCheckout"]>>;
  try {
    checkout = await deps.payments.createCheckout({
      orderId,
      accountId,
      currency: "eur",
      lineItems: items.map((item) => ({
        name: item.product?.name ?? item.productId,
        unitAmount: item.unitAmount ?? 0,
        quantity: item.quantity,
      })),
      customerEmail: input.user_email ?? null,
      successUrl: `${micrositeUrl}?order_id=${orderId}&checkout=complete`,
      cancelUrl: `${micrositeUrl}?order_id=${orderId}&checkout=cancelled`,
      metadata: { order_id: orderId, ab_id: merchant.abId },
      idempotencyKey: `abeille-order-${orderId}`,
      expiresAt,
    });
  } catch (error) {
    if (error instanceof PaymentProviderError) {
      // A concurrent twin of this idempotent request may have won meanwhile: answer its order.
      const twin = idempotency ? await deps.orders.findIdempotent(idempotency.scope, idempotency.key) : null;
      if (twin && idempotency) return replay(deps, twin, idempotency.requestHash, state);
      logger.warn("checkout refused", { order_id: orderId, ab_id: merchant.abId, provider_code: error.providerCode });
      throw new ServiceError(
        "PAYMENT_UNAVAILABLE",
        "The payment provider could not open a checkout for this merchant; no order was created. Retry later or send a lead",
      );
    }
    throw error;
  }
  if (checkout.amount !== amount) {
    logger.warn("checkout amount differs", { order_id: orderId, expected: amount, provider: checkout.amount });
  }

  const record: OrderRecord = {
    orderId,
    abId: merchant.abId,
    items: items.map((item) => ({
      product_id: item.productId,
      quantity: item.quantity,
      unit_cents: item.unitAmount ?? 0,
    })),
    amountCents: amount,
    currency: "eur",
    fulfillmentType: input.fulfillment_type,
    deliveryAddress: input.delivery_address ?? null,
    userEmail: input.user_email ?? null,
    customerNotes: input.customer_notes ?? null,
    agentId: caller.agentId,
    status: "payment_pending",
    paymentProvider: checkout.provider,
    paymentIntentId: checkout.paymentIntentId,
    checkoutUrl: checkout.url,
    createdAt,
  };
  const outcome = await deps.orders.insert(record, idempotency);
  if (outcome === "duplicate" && idempotency) {
    const previous = await deps.orders.findIdempotent(idempotency.scope, idempotency.key);
    if (previous) return replay(deps, previous, idempotency.requestHash, state);
  }
  logger.info("order created", { order_id: orderId, ab_id: merchant.abId, agent_id: caller.agentId, amount });
  return answerFor(deps.baseUrl, record, items, state, false);
}

async function replay(
  deps: CreateOrderDeps,
  previous: { requestHash: string; orderId: string },
  requestHash: string,
  state: MerchantState,
): Promise<OrderAnswer> {
  if (previous.requestHash !== requestHash) {
    throw new ServiceError("CONFLICT", "This Idempotency-Key was already used with a different order request");
  }
  const order = await deps.orders.findById(previous.orderId);
  if (!order) throw new ServiceError("CONFLICT", "This Idempotency-Key names an order that no longer exists");
  const profile = await deps.merchants.findProfile(order.abId);
  const items = priceItems(
    profile?.products ?? [],
    order.items.map((item) => item.product_id),
    order.items.map((item) => item.quantity),
  ).map((item, index) => ({ ...item, unitAmount: order.items[index]?.unit_cents ?? item.unitAmount }));
  return answerFor(deps.baseUrl, order, items, state, true);
}

function answerFor(
  baseUrl: string,
  order: OrderRecord,
  items: PricedItem[],
  state: MerchantState,
  replayed: boolean,
): OrderAnswer {
  const checkoutUrl = order.checkoutUrl ?? "";
  return {
    order_id: order.orderId,
    status: "payment_pending",
    ab_id: order.abId,
    fulfillment_type: order.fulfillmentType,
    items: items.map((item) => ({
      product_id: item.productId,
      name: item.product?.name ?? item.productId,
      quantity: item.quantity,
      unit_amount: item.unitAmount ?? 0,
      line_amount: (item.unitAmount ?? 0) * item.quantity,
    })),
    payment: {
      provider: order.paymentProvider,
      payment_intent_id: order.paymentIntentId,
      client_secret: null,
      payment_link: checkoutUrl,
      amount: order.amountCents,
      currency: "eur",
      expires_at: new Date(Date.parse(order.createdAt) + CHECKOUT_TTL_MS).toISOString(),
    },
    actions: [
      action("pay", "GET", checkoutUrl, "Hand this hosted checkout to the customer: they pay the merchant directly"),
      action("merchant", "GET", `${baseUrl}/api/registry/resolve/${order.abId}`, "The merchant's profile"),
      action("attribution_convert", "POST", `${baseUrl}/api/attribution/convert`, "Credit an attribution session", [
        { name: "session_id", type: "string", required: true },
        { name: "order_id", type: "string", required: true },
      ]),
    ],
    state,
    replayed,
  };
}

/** An order id derived from the caller's Idempotency-Key, so that concurrent twins collide on the primary key. */
function idempotentOrderId(scope: string, key: string): string {
  const hex = createHash("sha256").update(`${scope}\n${key}`).digest("hex");
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
