import { z } from "zod";
import { abIdSchema, described } from "./common.ts";
import { actionSchema, merchantStateSchema } from "./envelope.ts";

export const ORDER_MAX_PRODUCTS = 50;
export const ORDER_MAX_QUANTITY = 999;
export const ORDER_NOTES_MAX = 1000;
/** Stripe's ceiling for one charge in EUR (999,999.99 EUR). */
export const ORDER_MAX_AMOUNT_CENTS = 99_999_999;

const productIdSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

export const deliveryAddressSchema = z
  .object({
    street: z.string().trim().min(1, "is required").max(200, "must be at most 200 characters"),
    city: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
    postal_code: z
      .string()
      .trim()
      .regex(/^\d{5}$/, "must be a French postal code of 5 digits"),
    country: z
      .string()
      .trim()
      .toUpperCase()
      .pipe(z.literal("FR", { message: "must be FR (orders are delivered in France only)" }))
      .meta({ minLength: 2, maxLength: 2, description: "FR: orders are delivered in France only" }),
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9][0-9 .()-]{5,19}$/, "must be a phone number (digits, spaces, . ( ) -, optional leading +)"),
  })
  .strict()
  .meta({ id: "DeliveryAddress" });

/** POST /api/orders/create: the spec's fields with the limits Abeille enforces (docs/decisions.md). */
export const createOrderBodySchema = z
  .object(
    described(
      {
        merchant_id: abIdSchema,
        product_ids: z
          .array(productIdSchema)
          .min(1, "must list at least one product")
          .max(ORDER_MAX_PRODUCTS, `must list at most ${ORDER_MAX_PRODUCTS} products`),
        quantities: z
          .array(
            z
              .number()
              .int("must be an integer")
              .min(1, "must be at least 1")
              .max(ORDER_MAX_QUANTITY, `must be at most ${ORDER_MAX_QUANTITY}`),
          )
          .min(1, "must list at least one quantity")
          .max(ORDER_MAX_PRODUCTS, `must list at most ${ORDER_MAX_PRODUCTS} quantities`),
        fulfillment_type: z.enum(["pickup", "delivery"], { message: "must be pickup or delivery" }),
        delivery_address: deliveryAddressSchema.optional(),
        user_email: z.email("must be an email address").max(254, "must be at most 254 characters").optional(),
        customer_notes: z.string().max(ORDER_NOTES_MAX, `must be at most ${ORDER_NOTES_MAX} characters`).optional(),
      },
      {
        merchant_id: "The merchant to order from (ab_ and 8 lowercase letters or digits)",
        product_ids: "The products to order, each once (product ids from the merchant's profile)",
        quantities: "One quantity per product, in the same order as product_ids",
        fulfillment_type: "pickup at the merchant's, or delivery (needs delivery_address)",
        delivery_address: "Where to deliver, in France; required for delivery",
        user_email: "The buyer's email address, for the receipt",
        customer_notes: "A note to the merchant",
      },
    ),
  )
  .strict()
  .superRefine((body, context) => {
    if (body.quantities.length !== body.product_ids.length) {
      context.addIssue({
        code: "custom",
        path: ["quantities"],
        message: `must have one quantity per product (${body.product_ids.length} products, ${body.quantities.length} quantities)`,
      });
    }
    const seen = new Set<string>();
    body.product_ids.forEach((id, index) => {
      if (seen.has(id)) {
        context.addIssue({
          code: "custom",
          path: ["product_ids", index],
          message: "is listed twice; add the quantities",
        });
      }
      seen.add(id);
    });
    if (body.fulfillment_type === "delivery" && !body.delivery_address) {
      context.addIssue({ code: "custom", path: ["delivery_address"], message: "is required for delivery" });
    }
    if (body.fulfillment_type === "pickup" && body.delivery_address) {
      context.addIssue({ code: "custom", path: ["delivery_address"], message: "is only accepted for delivery" });
    }
  })
  .meta({ id: "CreateOrderRequest" });
export type CreateOrderBody = z.output<typeof createOrderBodySchema>;

export const orderPaymentSchema = z
  .object({
    provider: z.literal("stripe"),
    /** Null in a hosted checkout until the customer confirms. */
    payment_intent_id: z.string().nullable(),
    /** Null in a hosted checkout (only embedded checkouts have one). */
    client_secret: z.string().nullable(),
    payment_link: z.url(),
    amount: z.number().int().positive(),
    currency: z.literal("eur"),
    /** When the hosted checkout closes (23 hours after creation). */
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "OrderPayment" });

export const orderItemSchema = z.object({
  product_id: z.string(),
  name: z.string(),
  quantity: z.number().int(),
  unit_amount: z.number().int(),
  line_amount: z.number().int(),
});

/** 201 answer: these fields at the top level of the envelope, `_actions` an object keyed by rel. */
export const orderCreatedSchema = z
  .object({
    success: z.literal(true),
    order_id: z.uuid(),
    status: z.literal("payment_pending"),
    ab_id: abIdSchema,
    fulfillment_type: z.enum(["pickup", "delivery"]),
    items: z.array(orderItemSchema),
    payment: orderPaymentSchema,
    _actions: z.record(z.string(), actionSchema),
    _state: merchantStateSchema,
  })
  .meta({ id: "OrderCreated" });

/** Arguments of the tool quote_order_readiness. */
export const quoteOrderReadinessInputSchema = z
  .object(
    described(
      {
        ab_id: abIdSchema,
        product_ids: z.array(productIdSchema).min(1).max(ORDER_MAX_PRODUCTS).optional(),
        quantities: z.array(z.number().int().min(1).max(ORDER_MAX_QUANTITY)).min(1).max(ORDER_MAX_PRODUCTS).optional(),
      },
      {
        ab_id: "The merchant to check (ab_ and 8 lowercase letters or digits)",
        product_ids: "The products to price (product ids from the merchant's profile); absent: the merchant alone",
        quantities: "One quantity per product, in the same order as product_ids",
      },
    ),
  )
  .strict()
  .superRefine((input, context) => {
    if (input.quantities && !input.product_ids) {
      context.addIssue({ code: "custom", path: ["quantities"], message: "needs product_ids" });
    }
    if (input.quantities && input.product_ids && input.quantities.length !== input.product_ids.length) {
      context.addIssue({ code: "custom", path: ["quantities"], message: "must have one quantity per product" });
    }
  })
  .meta({ id: "QuoteOrderReadinessInput" });
export type QuoteOrderReadinessInput = z.output<typeof quoteOrderReadinessInputSchema>;

export const orderReadinessSchema = z
  .object({
    ab_id: abIdSchema,
    ready: z.boolean(),
    blocked_because: z.array(z.string()),
    merchant_can_receive_orders: z.boolean(),
    amount: z.number().int().nullable(),
    currency: z.literal("eur"),
    fulfillment_types: z.array(z.enum(["pickup", "delivery"])),
    items: z.array(
      z.object({
        product_id: z.string(),
        name: z.string().nullable(),
        quantity: z.number().int(),
        unit_amount: z.number().int().nullable(),
        line_amount: z.number().int().nullable(),
        price: z.string().nullable(),
        status: z.enum(["priced", "on_quote", "price_not_fixed", "not_found"]),
      }),
    ),
    order_endpoint: z.string().nullable(),
    lead_instead: z
      .object({ endpoint: z.string(), method: z.literal("POST"), example_payload: z.record(z.string(), z.unknown()) })
      .nullable(),
  })
  .meta({ id: "OrderReadiness" });
