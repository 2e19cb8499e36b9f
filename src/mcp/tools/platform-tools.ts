import { action } from "../../domain/actions.ts";
import { quoteOrderReadiness } from "../../domain/orders/quote-order-readiness.ts";
import { submitPlatformContact } from "../../domain/platform-contact/submit-platform-contact.ts";
import { successEnvelope } from "../../http/envelope.ts";
import { permissionFor } from "../../http/guard.ts";
import { successEnvelopeSchema } from "../../openapi/envelopes.ts";
import { platformContactResponseSchema } from "../../openapi/responses.ts";
import { orderReadinessSchema, quoteOrderReadinessInputSchema } from "../../schemas/orders.ts";
import { PLATFORM_CONTACT_TYPES, platformContactRequestSchema } from "../../schemas/platform-contact.ts";
import { defineTool } from "../tool.ts";

export const contactService = defineTool({
  name: "contact_service",
  twin: "contactPlatform",
  title: "Write to the platform team",
  description:
    `Send a message to the Abeille platform team (not to a merchant): type is one of ${PLATFORM_CONTACT_TYPES.join(", ")} ` +
    "(merchant_inquiry: a merchant asking about its listing; partnership; support: a problem with the registry, a wrong listing, an error that persists), with name, email, optional phone and company, and the message (1-1000 characters). " +
    'Returns contact_id and status "received"; the team answers by email. To reach a merchant, use submit_lead or contact_merchant instead.',
  input: platformContactRequestSchema,
  output: platformContactResponseSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  // The rule of POST /api/contact/platform: every caller may write to the platform team.
  permission: permissionFor("platform_contact"),
  run(args, { app, envelopeContext }) {
    const receipt = submitPlatformContact(
      { platformContacts: app.platformContacts, now: app.now, notifyOutbox: app.notifyOutbox },
      args,
    );
    const base = app.config.baseUrl;
    return successEnvelope(envelopeContext("/api/contact/platform"), {
      topLevel: { contact_id: receipt.contact_id, status: receipt.status },
      actions: [
        action("search", "GET", `${base}/api/registry/search?q={q}`, "Search the registry", [
          { name: "q", type: "string", required: true },
        ]),
        action("describedby", "GET", `${base}/openapi.json`, "Read the API description"),
      ],
    });
  },
});

export const quoteOrderReadinessTool = defineTool({
  name: "quote_order_readiness",
  title: "Could this order be placed?",
  description:
    "Check whether a merchant could take an online order for given products and quantities now, and for how much: ready, blocked_because (order_rail_disabled while orders are closed to public agents, merchant_not_active, trust_score_below_order_minimum, payment_not_setup, product_not_found, product_on_quote, product_price_not_fixed), the priced items and total in cents, and the fulfilment types. " +
    "When not ready, lead_instead gives the quote request to send instead: pass its example_payload (with the user's real name and email) to submit_lead. The service never takes payment itself. Reads only; needs an API key of level 3 (Commercial).",
  input: quoteOrderReadinessInputSchema,
  output: successEnvelopeSchema({ id: "OrderReadinessResponse", data: orderReadinessSchema }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  permission: "orders:quote",
  guidance: {
    FORBIDDEN: () =>
      'quote_order_readiness needs an API key of level 3 (Commercial) approved by the operators. Orders are closed to public agents anyway: send the purchase intention as a lead with submit_lead (lead_type "quote", the products and quantities in the message).',
  },
  async run(args, { app, envelopeContext }) {
    const readiness = await quoteOrderReadiness(
      {
        merchants: app.merchants,
        paymentAccountFor: (abId) => app.orders.paymentAccountFor(abId),
        baseUrl: app.config.baseUrl,
        orderRailEnabled: app.config.publicOrderRailEnabled,
        now: app.now,
      },
      args,
    );
    const base = app.config.baseUrl;
    return successEnvelope(envelopeContext(), {
      data: readiness,
      actions: readiness.ready
        ? [action("create_order", "POST", `${base}/api/orders/create`, "Create the order (opens a checkout)")]
        : [
            action(
              "create_lead",
              "POST",
              `${base}/api/contact/brick`,
              "Send the purchase intention as a lead instead",
              [
                { name: "ab_id", type: "string", required: true },
                { name: "contact_name", type: "string", required: true },
                { name: "contact_email", type: "email", required: true },
                { name: "lead_type", type: "enum", required: true },
                { name: "message", type: "text", required: false },
              ],
            ),
          ],
      links: { merchant: `${base}/api/registry/resolve/${readiness.ab_id}` },
    });
  },
});

export const platformTools = [contactService, quoteOrderReadinessTool];
